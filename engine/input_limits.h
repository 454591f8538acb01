// Budgets on what one input may cost: a hostile or mistaken ApplicationSet file, template or
// repository must fail with an error on its set, never exhaust the daemon's memory, CPU or
// stack. `limits:` in fleetwave.yaml sets them (engine/config.cc); the defaults are documented
// in docs/guide.md. Going over a budget is an error on the object it concerns (the file, the
// set, the app) and the last good version stays in force.
#pragma once

#include <cstddef>

namespace fleetwave::engine {

struct InputLimits {
  // One ApplicationSet, AppProject or config file as read from disk.
  std::size_t max_file_bytes = 4u << 20;
  // Applications one ApplicationSet may generate (after matrix/merge and post-selectors).
  std::size_t max_apps_per_appset = 25000;
  // One generated Application, as canonical JSON (a template's output, after every function).
  std::size_t max_application_bytes = 256u << 10;
  // Every object one sync of one app renders from git, as canonical JSON.
  std::size_t max_render_bytes = 32u << 20;
  // Nesting of YAML/JSON documents (maps and sequences) and of template expressions
  // (parentheses, pipelines, if/range/with blocks). Recursion beyond it is an error, never the
  // stack.
  std::size_t max_document_depth = 200;
  std::size_t max_template_depth = 100;
  // What a cluster may make the daemon hold: one watch event (a stream line) and one response
  // body. Past either the request or watch fails naming the cluster and resource, its memory
  // is released, and a watch is re-opened with backoff (cluster-clients' ClientOptions).
  std::size_t max_watch_event_bytes = 16u << 20;
  std::size_t max_response_bytes = 512u << 20;
};

}  // namespace fleetwave::engine
