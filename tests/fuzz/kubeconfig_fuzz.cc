// The kubeconfig loader on any file content (it reads files, so the input is written to a
// per-process temporary file first), and the base64 decoder its -data fields go through.
#include <unistd.h>

#include <fstream>

#include "cluster-clients/base64.h"
#include "cluster-clients/kubeconfig.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleetwave::clients;
  static const std::string path =
      "/tmp/fleetwave-kubeconfig-fuzz-" + std::to_string(::getpid()) + ".yaml";
  const std::string text = fleetwave::fuzz::Text(data, size);
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
  }
  const KubeconfigSet set = LoadKubeconfigs({path});
  (void)ClusterValues(set);
  if (auto decoded = Base64Decode(text)) {
    // What decodes re-encodes to the same bytes, whitespace and padding aside.
    if (Base64Decode(Base64Encode(*decoded)) != decoded) __builtin_trap();
  }
  return 0;
}
