// Watch streams of any bytes: the decoder (fed in chunks whose sizes come from the input), the
// Status classifier on the same bytes, and an informer on a fake transport consuming the
// stream — the path where a malformed event used to end the process. Byte 0 picks the chunk
// size; the rest is the stream. A second decoder and the informer's client run with a small
// event bound, so the overflow path (issue 30: a line without end) is reached too.
#include <algorithm>
#include <cstdlib>

#include "cluster-clients/informer.h"
#include "cluster-clients/watch_decoder.h"
#include "tests/cluster-clients/fake_transport.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleetwave::clients;
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 64;
  const std::string stream = fleetwave::fuzz::Text(data + 1, size - 1);

  WatchDecoder decoder;
  for (std::size_t i = 0; i < stream.size(); i += chunk)
    for (WatchEvent& ev : decoder.Feed(std::string_view(stream).substr(i, chunk)))
      (void)ev.object.dump(-1, ' ', false, Json::error_handler_t::replace);
  (void)ResultFromHttp(404, stream, std::nullopt);

  // The bound holds whatever the bytes: nothing pending past it, nothing decoded after it.
  WatchDecoder bounded(64);
  for (std::size_t i = 0; i < stream.size(); i += chunk) {
    const bool was_over = bounded.overflowed();
    const auto events = bounded.Feed(std::string_view(stream).substr(i, chunk));
    if (bounded.pending() > 64 || (was_over && !events.empty())) std::abort();
  }

  testing::FakeTransport transport;
  InlineExecutor executor([](const std::string&) {});
  ClusterConfig config;
  config.name = "fuzz";
  config.server = "https://fuzz.example.test";
  ClientOptions options;
  options.seed = 1;
  options.log = [](const std::string&) {};
  options.max_watch_event_bytes = 256;
  auto client = ClusterClient::Create(config, &transport, &executor, nullptr, options);
  InformerOptions io;
  io.resource = DeploymentsResource();
  io.project = ProjectFields({"/spec/replicas", "/status", "/metadata/labels"});
  auto informer = Informer::Start(client, io, {}, &executor);
  transport.RunUntilIdle();
  transport.Respond(transport.Oldest(), 200,
                    R"({"metadata":{"resourceVersion":"1"},"items":[{"metadata":)"
                    R"({"name":"a","namespace":"n","resourceVersion":"1"}}]})");
  for (std::size_t i = 0; i < stream.size() && !transport.Outstanding().empty(); i += chunk)
    transport.Feed(transport.Oldest(), std::string_view(stream).substr(i, chunk));
  informer->Stop();
  transport.RunUntilIdle();
  return 0;
}
