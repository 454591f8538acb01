#include "tools/fleetwave/get_watch.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "engine/yaml_json.h"
#include "tools/fleetwave/table.h"

namespace fleetwave::cli {
namespace {

using engine::Json;

// What a stream thread hands the drawing thread.
struct Update {
  std::string collection;
  enum class Kind { kSnapshot, kEvent, kFailed, kEnded } kind = Kind::kEvent;
  Json payload;         // kSnapshot: a list body {"items": [...]}; kEvent: the event
  std::string message;  // kFailed: why
  int status = 0;       // kFailed: the HTTP status (0: no answer)

  static Update Of(std::string collection, Kind kind, Json payload = Json(),
                   std::string message = "", int status = 0) {
    Update u;
    u.collection = std::move(collection);
    u.kind = kind;
    u.payload = std::move(payload);
    u.message = std::move(message);
    u.status = status;
    return u;
  }
};

class Updates {
 public:
  void Push(Update u) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(u));
    }
    cv_.notify_one();
  }
  // Waits until there is an update or `until`; takes every pending one.
  std::deque<Update> Take(std::chrono::steady_clock::time_point until) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, until, [this] { return !queue_.empty(); });
    std::deque<Update> out;
    out.swap(queue_);
    return out;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Update> queue_;
};

// One collection's stream, started again whenever it ends: its snapshot (the ADDED lines up
// to the first BOOKMARK) becomes one kSnapshot update, then each event one kEvent.
void Stream(DaemonClient& client, const ClientSettings& settings, const std::string& collection,
            const std::string& path, Updates& updates, const std::atomic<bool>& cancel) {
  bool ever_started = false;
  while (!cancel.load()) {
    bool initial = true;
    Json items = Json::array();
    const ApiReply reply = client.Watch(
        path,
        [&](std::string_view line) {
          const Json event = Json::parse(line, nullptr, /*allow_exceptions=*/false);
          if (!event.is_object()) return true;
          const auto type = event.find("type");
          if (type == event.end() || !type->is_string()) return true;
          if (*type == "BOOKMARK") {
            if (initial) {
              initial = false;
              ever_started = true;
              updates.Push(Update::Of(collection, Update::Kind::kSnapshot, Json{{"items", items}}));
              items = Json::array();
            }
            return true;
          }
          if (initial) {
            if (*type == "ADDED" && event.contains("object")) items.push_back(event["object"]);
          } else {
            updates.Push(Update::Of(collection, Update::Kind::kEvent, event));
          }
          return !cancel.load();
        },
        &cancel);
    if (cancel.load()) return;
    if (!reply.ok() || reply.status == 0) {
      updates.Push(Update::Of(collection, Update::Kind::kFailed, Json(),
                              DescribeFailure(settings, reply), reply.status));
      // Refused outright (a 4xx) before any stream started: no point in trying again.
      if (!ever_started && reply.status >= 400 && reply.status < 500) return;
    } else {
      updates.Push(Update::Of(collection, Update::Kind::kEnded));
    }
    // Pacing between attempts (a daemon being restarted takes a moment to listen again).
    for (int i = 0; i < 10 && !cancel.load(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

void TerminalSize(size_t* width, size_t* height) {
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    *width = ws.ws_col;
    *height = ws.ws_row;
  } else {
    *width = 0;
    *height = 0;
  }
}

engine::Time Now() {
  return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

// -o json|yaml --watch: the primary collection's events as the API sends them.
int WatchRaw(DaemonClient& client, const ClientSettings& settings, const GetRequest& request,
             std::ostream& out, std::ostream& err) {
  std::atomic<bool> cancel{false};
  while (true) {
    bool started = false;
    const ApiReply reply = client.Watch(
        "/api/v1/" + request.collection,
        [&](std::string_view line) {
          started = true;
          const Json event = Json::parse(line, nullptr, false);
          if (!event.is_object() || event.value("type", "") == "BOOKMARK") return true;
          if (!request.name.empty() && event.contains("object") &&
              FleetState::KeyOf(request.collection, event["object"]) != request.name) {
            return true;
          }
          if (request.format == "yaml") {
            out << "---\n" << engine::JsonToYaml(event);
          } else {
            out << event.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
          }
          out.flush();
          return true;
        },
        &cancel);
    if (!reply.ok()) {
      err << "fleetwave get: " << DescribeFailure(settings, reply) << "\n";
      if (!started) return 1;
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace

std::vector<std::string> ChangedLines(const View& before, const View& after) {
  std::map<std::string, std::string> old(before.lines.begin(), before.lines.end());
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (const auto& [key, line] : after.lines) {
    seen.insert(key);
    auto it = old.find(key);
    if (it == old.end() || it->second != line) out.push_back(line);
  }
  for (const auto& [key, line] : before.lines) {
    if (seen.count(key) == 0) out.push_back(line + " (deleted)");
  }
  return out;
}

std::string Redraw(size_t previous_lines, const std::string& text, size_t width, size_t height,
                   size_t* lines) {
  std::string out;
  // Up to the first line of the previous drawing (CUU and a carriage return: every terminal
  // and tmux know them). Each line then clears its own rest (EL), and what is left below the
  // new drawing is cleared last: clearing the whole screen from its top-left corner would make
  // tmux push the old drawing into the scrollback (its scroll-on-clear), a copy per redraw.
  if (previous_lines > 0) out += "\x1b[" + std::to_string(previous_lines) + "A\r";
  size_t drawn = 0;
  size_t start = 0;
  while (start < text.size()) {
    if (height > 1 && drawn + 1 >= height) break;
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out += FitWidth(text.substr(start, nl - start), width);
    out += "\x1b[K\n";
    ++drawn;
    start = nl + 1;
  }
  out += "\x1b[J";
  *lines = drawn;
  return out;
}

int WatchGet(DaemonClient& client, const ClientSettings& settings, const GetRequest& request,
             std::ostream& out, std::ostream& err) {
  if (request.format == "json" || request.format == "yaml") {
    return WatchRaw(client, settings, request, out, err);
  }
  const std::vector<std::string> collections = CollectionsFor(request.kind);
  Updates updates;
  std::atomic<bool> cancel{false};
  std::vector<std::thread> threads;
  for (const std::string& c : collections) {
    threads.emplace_back([&client, &settings, &updates, &cancel, c, path = PathFor(request, c)] {
      Stream(client, settings, c, path, updates, cancel);
    });
  }
  auto stop = [&](int code) {
    cancel = true;
    for (auto& t : threads) t.join();
    return code;
  };

  FleetState state;
  std::set<std::string> ready;                 // collections whose first snapshot arrived
  std::map<std::string, std::string> trouble;  // collection -> why its stream is down
  bool drawn = false;
  View last;
  size_t last_lines = 0;
  std::string last_frame;
  ViewOptions options;
  options.wide = request.format == "wide";
  options.color = request.color;

  while (true) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    for (Update& u : updates.Take(until)) {
      switch (u.kind) {
        case Update::Kind::kSnapshot:
          state.SetList(u.collection, u.payload);
          ready.insert(u.collection);
          trouble.erase(u.collection);
          break;
        case Update::Kind::kEvent:
          state.Apply(u.collection, u.payload);
          break;
        case Update::Kind::kFailed:
          if (!drawn && ready.count(u.collection) == 0) {
            err << "fleetwave get: " << u.message << "\n";
            return stop(1);
          }
          trouble[u.collection] = u.message;
          if (!request.terminal) err << "fleetwave get: " << u.message << "; retrying\n";
          break;
        case Update::Kind::kEnded:
          break;  // started again at once; its snapshot replaces the collection
      }
    }
    if (ready.size() < collections.size()) continue;
    options.now = Now();
    const View view = RenderGet(request, state, options);
    if (request.terminal) {
      std::string text = view.text;
      for (const auto& [c, why] : trouble) text += "\n(" + c + ": " + why + "; retrying)\n";
      size_t width = 0, height = 0;
      TerminalSize(&width, &height);
      if (!drawn || text != last_frame) {
        size_t lines = 0;
        out << Redraw(drawn ? last_lines : 0, text, width, height, &lines);
        out.flush();
        last_lines = lines;
        last_frame = text;
      }
    } else if (!drawn) {
      if (!view.found) continue;  // the set is not published yet: its first view comes with it
      out << (view.lines.empty() ? "No resources found.\n" : view.text);
      out.flush();
    } else {
      for (const std::string& line : ChangedLines(last, view)) out << line << "\n";
      out.flush();
    }
    last = view;
    drawn = true;
  }
}

}  // namespace fleetwave::cli
