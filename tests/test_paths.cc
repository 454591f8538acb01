#include "tests/test_paths.h"

namespace fleetwave::test_paths {

// Built from literals at each call: callers use them in namespace-scope initialisers of other
// files, whose order against this file's statics is unspecified.
std::string SourceDir() { return FLEETWAVE_SOURCE_DIR; }
std::string TestdataDir() { return FLEETWAVE_TESTDATA_DIR; }
std::string VectorsDir() { return FLEETWAVE_VECTORS_DIR; }

}  // namespace fleetwave::test_paths
