// The operator actions through the daemon's API: `fleetwave sync APP [--revision R]`,
// `skip APP --reason T`, `pause SET`, `resume SET`, `abort SET`, `rollback SET [--to R]`,
// `delete appset SET`, `refresh`. Each finds the daemon and its token as daemon_client.h says,
// prints the daemon's answer, and exits 0 when the daemon accepted the action, 1 when it refused
// it or could not be reached, 2 on a usage error (ClientCliTest.*).
#include <cstdlib>
#include <functional>
#include <set>

#include "engine/yaml_json.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/daemon_client.h"

namespace fleetwave::cli {
namespace {

// Percent-encodes a path segment (names are DNS labels, but a typo must not reach another
// route).
std::string Segment(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

struct Action {
  std::string method;
  std::string path;
  std::string body;
};

// Parses the command's arguments into the request; returns 0 or the usage exit code.
int ClientAction(const std::string& command, const Argv& argv, std::ostream& out, std::ostream& err,
                 const std::set<std::string>& own_flags, const std::string& usage,
                 size_t positionals,
                 const std::function<Action(const Args&, std::string*)>& build) {
  std::string error;
  std::set<std::string> flags = ClientFlags();
  flags.insert(own_flags.begin(), own_flags.end());
  auto args = ParseArgs(argv, flags, {}, &error);
  if (args && args->positional.size() != positionals) {
    error = positionals == 0 ? "takes no arguments" : "wrong number of arguments";
    args.reset();
  }
  Action action;
  if (args) action = build(*args, &error);
  if (!args || !error.empty()) {
    err << "fleetwave " << command << ": " << error << "\n" << usage;
    return 2;
  }
  auto settings = ResolveClientSettings(
      *args, [](const char* name) { return std::getenv(name); }, &error);
  if (!settings) {
    err << "fleetwave " << command << ": " << error << "\n";
    return 1;
  }
  if (settings->token.empty()) {
    err << "fleetwave " << command << ": " << MissingTokenMessage() << "\n";
    return 1;
  }
  auto client = MakeHttpDaemonClient(*settings);
  const ApiReply reply = client->Send(action.method, action.path, action.body);
  if (!reply.ok()) {
    err << "fleetwave " << command << ": " << DescribeFailure(*settings, reply) << "\n";
    return 1;
  }
  const engine::Json doc = engine::Json::parse(reply.body, nullptr, false);
  auto message = doc.is_object() ? doc.find("message") : doc.end();
  if (doc.is_object() && message != doc.end() && message->is_string()) {
    out << message->get<std::string>() << "\n";
  }
  return 0;
}

}  // namespace

int RunSync(const Argv& argv, std::ostream& out, std::ostream& err) {
  return ClientAction("sync", argv, out, err, {"--revision"},
                      "usage: fleetwave sync APP [--revision R] [--server URL] [--token-file F]\n",
                      1, [](const Args& a, std::string*) {
                        engine::Json body = engine::Json::object();
                        if (auto r = a.Get("--revision")) body["revision"] = *r;
                        return Action{"POST",
                                      "/api/v1/applications/" + Segment(a.positional[0]) + "/sync",
                                      body.empty() ? "" : body.dump()};
                      });
}

int RunSkip(const Argv& argv, std::ostream& out, std::ostream& err) {
  return ClientAction("skip", argv, out, err, {"--reason"},
                      "usage: fleetwave skip APP --reason TEXT [--server URL] [--token-file F]\n",
                      1, [](const Args& a, std::string* error) {
                        auto reason = a.Get("--reason");
                        if (!reason || reason->empty()) {
                          *error = "a skip needs --reason TEXT (it is logged and kept)";
                          return Action{};
                        }
                        return Action{"POST",
                                      "/api/v1/applications/" + Segment(a.positional[0]) + "/skip",
                                      engine::Json{{"reason", *reason}}.dump()};
                      });
}

int RunPause(const Argv& argv, std::ostream& out, std::ostream& err) {
  return ClientAction(
      "pause", argv, out, err, {}, "usage: fleetwave pause SET [--server URL] [--token-file F]\n",
      1, [](const Args& a, std::string*) {
        return Action{"POST", "/api/v1/applicationsets/" + Segment(a.positional[0]) + "/pause", ""};
      });
}

int RunResume(const Argv& argv, std::ostream& out, std::ostream& err) {
  return ClientAction(
      "resume", argv, out, err, {}, "usage: fleetwave resume SET [--server URL] [--token-file F]\n",
      1, [](const Args& a, std::string*) {
        return Action{"POST", "/api/v1/applicationsets/" + Segment(a.positional[0]) + "/resume",
                      ""};
      });
}

int RunAbort(const Argv& argv, std::ostream& out, std::ostream& err) {
  return ClientAction(
      "abort", argv, out, err, {}, "usage: fleetwave abort SET [--server URL] [--token-file F]\n",
      1, [](const Args& a, std::string*) {
        return Action{"POST", "/api/v1/applicationsets/" + Segment(a.positional[0]) + "/abort", ""};
      });
}

// [issue 29] The daemon answers at once (the next decision starts the rollback): the message
// says what will be rolled back to, or why not (one already running is a conflict).
int RunRollback(const Argv& argv, std::ostream& out, std::ostream& err) {
  return ClientAction(
      "rollback", argv, out, err, {"--to"},
      "usage: fleetwave rollback SET [--to REVISION] [--server URL] [--token-file F]\n"
      "  returns every app the rollout synced to its last healthy revisions (or to REVISION),\n"
      "  last step first, and holds the rolled-back revision until a new commit\n",
      1, [](const Args& a, std::string* error) {
        engine::Json body = engine::Json::object();
        if (auto to = a.Get("--to")) {
          if (to->empty()) {
            *error = "--to needs a revision (a commit, tag or branch)";
            return Action{};
          }
          body["to"] = *to;
        }
        return Action{"POST", "/api/v1/applicationsets/" + Segment(a.positional[0]) + "/rollback",
                      body.empty() ? "" : body.dump()};
      });
}

int RunDelete(const Argv& argv, std::ostream& out, std::ostream& err) {
  return ClientAction(
      "delete", argv, out, err, {},
      "usage: fleetwave delete appset SET [--server URL] [--token-file F]\n", 2,
      [](const Args& a, std::string* error) {
        const std::string& kind = a.positional[0];
        if (kind != "appset" && kind != "appsets" && kind != "applicationset" &&
            kind != "applicationsets") {
          *error = "only an ApplicationSet can be deleted (fleetwave delete appset SET)";
          return Action{};
        }
        return Action{"DELETE", "/api/v1/applicationsets/" + Segment(a.positional[1]), ""};
      });
}

int RunRefresh(const Argv& argv, std::ostream& out, std::ostream& err) {
  return ClientAction("refresh", argv, out, err, {},
                      "usage: fleetwave refresh [--server URL] [--token-file F]\n", 0,
                      [](const Args&, std::string*) {
                        return Action{"POST", "/api/v1/refresh", ""};
                      });
}

}  // namespace fleetwave::cli
