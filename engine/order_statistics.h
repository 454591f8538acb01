// A sorted set that also answers "how many keys are less than this one" in O(log n): the
// rank a summary's heat strip needs to place one app's digit without walking the others.
// libstdc++'s policy-based red-black tree with order statistics (both GCC and Clang on
// libstdc++ build it); kept behind this one alias so nothing else names the extension.
#pragma once

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
#include <functional>

namespace fleetwave::engine {

// order_of_key(k): the number of keys less than k; insert/erase/find as std::set.
template <typename Key>
using OrderStatisticSet =
    __gnu_pbds::tree<Key, __gnu_pbds::null_type, std::less<Key>, __gnu_pbds::rb_tree_tag,
                     __gnu_pbds::tree_order_statistics_node_update>;

}  // namespace fleetwave::engine
