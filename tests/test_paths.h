// Where the checkout's test inputs are (tests/testdata, tests/vectors, the source root), fixed when
// the build is configured.
//
// One source file, tests/test_paths.cc, holds the folders; no test's compile command names the
// checkout. A folder in a compile command is part of ccache's key (CCACHE_BASEDIR rewrites paths
// in -I and the file names, not in -D values), so with it every test object missed the cache in
// a clone at another path - as CI's fresh clone is - and CI compiled every test cold.
#pragma once

#include <string>

namespace fleetwave::test_paths {

std::string SourceDir();    // the checkout's root
std::string TestdataDir();  // tests/testdata
std::string VectorsDir();   // tests/vectors

}  // namespace fleetwave::test_paths
