#include "sources/source.h"

namespace fleetwave::sources {

engine::Error ErrorAt(engine::ErrorKind kind, const Snapshot& snapshot, const std::string& file,
                      engine::SourcePos pos, std::string message) {
  std::string where = snapshot.repo_url + "@" + snapshot.sha + ":" + file;
  if (pos.line > 0) where += ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
  return engine::Error{kind, std::move(where), std::move(message)};
}

std::optional<std::string> NormalizePath(const std::string& path) {
  if (!path.empty() && path.front() == '/') return std::nullopt;
  std::string out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string segment = path.substr(start, end - start);
    start = end + 1;
    if (segment.empty() || segment == ".") continue;
    if (segment == "..") return std::nullopt;  // never read outside the repository
    if (!out.empty()) out += '/';
    out += segment;
  }
  return out;
}

bool IsManifestName(const std::string& name) {
  auto ends_with = [&](const char* suffix) {
    const std::string s(suffix);
    return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with(".yaml") || ends_with(".yml") || ends_with(".json");
}

void ParseManifestFile(const Snapshot& snapshot, const std::string& file, const std::string& text,
                       ReadResult& out) {
  engine::LoadedDocuments loaded = engine::LoadYamlDocuments(text, file);
  for (const engine::Issue& issue : loaded.issues) {
    out.errors.push_back(
        ErrorAt(engine::ErrorKind::kInvalidInput, snapshot, file, issue.pos, issue.message));
  }
  int index = 0;
  for (const YAML::Node& doc : loaded.documents) {
    const int this_index = index++;
    // A JSON file may hold an array of objects (kubectl accepts it); each is one manifest.
    std::vector<YAML::Node> objects;
    if (doc.IsSequence()) {
      for (const YAML::Node& element : doc) objects.push_back(element);
    } else {
      objects.push_back(doc);
    }
    for (const YAML::Node& object : objects) {
      if (!object.IsMap()) {
        out.errors.push_back(ErrorAt(engine::ErrorKind::kInvalidInput, snapshot, file,
                                     engine::PosOf(object), "a manifest must be an object"));
        continue;
      }
      out.manifests.push_back(
          {file, this_index, engine::PosOf(object), engine::YamlToJson(object)});
    }
  }
}

}  // namespace fleetwave::sources
