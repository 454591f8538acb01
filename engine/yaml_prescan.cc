#include "engine/yaml_prescan.h"

#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

namespace fleetwave::engine {
namespace {

// yaml-cpp 0.7's LoadAll calls Parser::HandleNextDocument until the scanner is empty. A
// document's node starts at the next token; when that token starts no node (a flow entry `,`
// after a complete node or at the start of the text: `,`, `!t ,`, `{a: 1} ,`, `- a\n,`,
// `"a"\n,`), SingleDocParser::HandleNode reports a null and consumes nothing, so every later
// call sees the same token and LoadAll appends empty documents until memory runs out. Such a
// document is exactly one null event and starts where the previous one started; the events
// show it whatever the token and however the text led to it, so this needs no second tokenizer
// to agree with yaml-cpp's. yaml-cpp after 0.9.0 stops LoadAll the same way (a document after
// which the next token has not moved); with such a release this pass could go. Found by the appset,
// config and yaml_json fuzz targets; pinned by yaml_prescan_test.cc, RunawayDocumentsAreRefused.
class RunawayDetector : public YAML::EventHandler {
 public:
  // Called after each document: true when this document consumed no token.
  bool Stuck() const { return stuck_; }
  const YAML::Mark& Start() const { return start_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    stuck_ = have_previous_ && previous_was_lone_null_ && mark.pos == start_.pos;
    have_previous_ = true;
    start_ = mark;
    events_ = 0;
    null_events_ = 0;
  }
  void OnDocumentEnd() override { previous_was_lone_null_ = events_ == 1 && null_events_ == 1; }
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { ++events_, ++null_events_; }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { ++events_; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    ++events_;
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    ++events_;
  }
  void OnSequenceEnd() override { ++events_; }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    ++events_;
  }
  void OnMapEnd() override { ++events_; }
  void OnAnchor(const YAML::Mark&, const std::string&) override { ++events_; }

 private:
  bool have_previous_ = false;
  bool previous_was_lone_null_ = false;
  bool stuck_ = false;
  YAML::Mark start_;
  int events_ = 0;
  int null_events_ = 0;
};

std::string Unexpected(const std::string& text, const YAML::Mark& mark) {
  const auto pos = static_cast<std::size_t>(mark.pos);
  if (mark.pos >= 0 && pos < text.size() && text[pos] > ' ' && text[pos] < 0x7F)
    return "unexpected '" + std::string(1, text[pos]) + "': no YAML node can start here";
  return "unexpected text: no YAML node can start here";
}

}  // namespace

std::optional<YamlReadProblem> PrescanYaml(const std::string& text) {
  std::istringstream in(text);
  try {
    YAML::Parser parser(in);
    RunawayDetector detector;
    while (parser.HandleNextDocument(detector)) {
      if (detector.Stuck()) {
        const YAML::Mark& m = detector.Start();
        return YamlReadProblem{{m.line + 1, m.column + 1}, Unexpected(text, m)};
      }
    }
  } catch (const YAML::Exception& e) {
    return YamlReadProblem{{e.mark.line + 1, e.mark.column + 1}, e.msg};
  }
  return std::nullopt;
}

}  // namespace fleetwave::engine
