#include "engine/appset/board_apps.h"

#include <algorithm>
#include <numeric>

namespace fleetwave::engine {

std::vector<std::size_t> LastOfEachName(const std::vector<std::string_view>& names) {
  std::vector<std::size_t> order(names.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  bool strictly_sorted = true;
  for (std::size_t i = 1; i < names.size() && strictly_sorted; ++i) {
    strictly_sorted = names[i - 1] < names[i];
  }
  if (strictly_sorted) return order;
  std::stable_sort(order.begin(), order.end(),
                   [&names](std::size_t a, std::size_t b) { return names[a] < names[b]; });
  std::vector<std::size_t> kept;
  kept.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    // Stable: of equal names the last given comes last in its run, and only it is kept.
    if (i + 1 < order.size() && names[order[i + 1]] == names[order[i]]) continue;
    kept.push_back(order[i]);
  }
  return kept;
}

bool PublishTakesApp(std::string_view owner, std::string_view publisher) {
  return owner != publisher;
}

std::vector<std::string> AppsLeftOutOfPublish(const std::vector<std::string_view>& before,
                                              const std::vector<std::string_view>& now) {
  std::vector<std::string> gone;
  std::size_t j = 0;
  for (const std::string_view name : before) {
    while (j < now.size() && now[j] < name) ++j;
    if (j == now.size() || now[j] != name) gone.emplace_back(name);
  }
  return gone;
}

AppSetSummary BoardSummaryOf(const SummaryState& state, const std::string& owner) {
  AppSetSummary summary = state.Summary(kBoardAttentionRows);
  summary.name = owner;
  return summary;
}

}  // namespace fleetwave::engine
