#include "store/etcd_client.h"

#include <curl/curl.h>

#include <string>
#include <utility>

namespace fleetwave::store {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t Append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// curl_global_init is not thread-safe: done once, before the first handle.
void GlobalInit() {
  static const bool done = [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return true;
  }();
  (void)done;
}

}  // namespace

std::string Base64Encode(const std::string& data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(data[i]) << 16) |
                       (static_cast<unsigned char>(data[i + 1]) << 8) |
                       static_cast<unsigned char>(data[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == data.size()) {
    const unsigned v = static_cast<unsigned char>(data[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == data.size()) {
    const unsigned v = (static_cast<unsigned char>(data[i]) << 16) |
                       (static_cast<unsigned char>(data[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

bool Base64Decode(const std::string& text, std::string* out) {
  out->clear();
  unsigned acc = 0;
  int bits = 0;
  size_t pad = 0;
  for (char c : text) {
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad > 0) return false;  // data after padding
    const char* p = std::char_traits<char>::find(kAlphabet, 64, c);
    if (p == nullptr) return false;
    acc = (acc << 6) | static_cast<unsigned>(p - kAlphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return pad <= 2;
}

std::string PrefixRangeEnd(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (end.empty()) return std::string(1, '\0');  // etcd: every key
  end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

int64_t JsonInt(const nlohmann::json& obj, const char* field) {
  const auto it = obj.find(field);
  if (it == obj.end()) return 0;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_string()) {
    try {
      return std::stoll(it->get<std::string>());
    } catch (...) {
      return 0;
    }
  }
  return 0;
}

EtcdClient::EtcdClient(EtcdTarget target, EtcdTlsFiles tls, EtcdClientOptions options)
    : target_(std::move(target)), tls_(std::move(tls)), options_(options) {
  GlobalInit();
}

EtcdClient::~EtcdClient() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

std::string EtcdClient::Describe() const {
  std::string out = target_.tls ? "etcds://" : "etcd://";
  for (size_t i = 0; i < target_.endpoints.size(); ++i) {
    out += (i ? "," : "") + target_.endpoints[i];
  }
  return out + target_.prefix;
}

void* EtcdClient::TakeHandle() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void EtcdClient::ReturnHandle(void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(handle);
}

EtcdClient::Attempt EtcdClient::Once(void* handle, const std::string& endpoint,
                                     const std::string& path, const std::string& body) {
  CURL* curl = static_cast<CURL*>(handle);
  Attempt out;
  const std::string where = (target_.tls ? "etcds://" : "etcd://") + endpoint;
  curl_easy_reset(curl);
  const std::string url = (target_.tls ? "https://" : "http://") + endpoint + path;
  std::string response;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, options_.request_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM, from any thread
  curl_easy_setopt(curl, CURLOPT_PROXY, "");     // never an environment proxy for the state
  if (target_.tls) {
    if (!tls_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, tls_.ca_file.c_str());
    if (!tls_.cert_file.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERT, tls_.cert_file.c_str());
    if (!tls_.key_file.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY, tls_.key_file.c_str());
  }
  const CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (rc != CURLE_OK) {
    // Nothing reached etcd when the connection was never made.
    long connected_port = 0;
    curl_easy_getinfo(curl, CURLINFO_PRIMARY_PORT, &connected_port);
    out.connected = !(rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                      (rc == CURLE_OPERATION_TIMEDOUT && connected_port == 0));
    out.reply.status = {Code::kIo, where + path + ": " + curl_easy_strerror(rc)};
    return out;
  }
  out.connected = true;
  nlohmann::json parsed = nlohmann::json::parse(response, nullptr, false);
  if (status != 200) {
    std::string text = response.substr(0, 300);
    if (parsed.is_object()) {
      if (parsed.contains("message") && parsed["message"].is_string()) {
        text = parsed["message"].get<std::string>();
      } else if (parsed.contains("error") && parsed["error"].is_string()) {
        text = parsed["error"].get<std::string>();
      }
    }
    out.reply.status = {Code::kIo, where + path + ": HTTP " + std::to_string(status) + ": " + text};
    return out;
  }
  if (!parsed.is_object()) {
    out.reply.status = {Code::kIo, where + path + ": the answer is not a JSON object"};
    return out;
  }
  out.reply.body = std::move(parsed);
  return out;
}

EtcdReply EtcdClient::Call(const std::string& path, const nlohmann::json& request,
                           bool idempotent) {
  const std::string body = request.dump();
  void* handle = TakeHandle();
  EtcdReply last;
  if (handle == nullptr) {
    last.status = {Code::kIo, Describe() + ": cannot create a curl handle"};
    return last;
  }
  const size_t n = target_.endpoints.size();
  const size_t first = current_.load();
  std::string errors;
  for (size_t i = 0; i < n; ++i) {
    const size_t index = (first + i) % n;
    Attempt a = Once(handle, target_.endpoints[index], path, body);
    if (a.reply.ok()) {
      current_.store(index);
      ReturnHandle(handle);
      return std::move(a.reply);
    }
    errors += (errors.empty() ? "" : "; ") + a.reply.status.message;
    // The next call starts elsewhere: this member failed us.
    current_.store((index + 1) % n);
    if (a.connected && !idempotent) break;
  }
  ReturnHandle(handle);
  last.status = {Code::kIo, errors};
  return last;
}

namespace {

struct StreamState {
  std::string buffer;
  const std::function<void(const nlohmann::json&)>* on_message;
  const std::function<bool()>* stop;
  bool malformed = false;
};

size_t StreamChunk(char* data, size_t size, size_t count, void* user) {
  auto* st = static_cast<StreamState*>(user);
  st->buffer.append(data, size * count);
  size_t start = 0;
  for (size_t nl; (nl = st->buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
    nlohmann::json message =
        nlohmann::json::parse(st->buffer.begin() + static_cast<std::ptrdiff_t>(start),
                              st->buffer.begin() + static_cast<std::ptrdiff_t>(nl), nullptr, false);
    if (!message.is_object()) {
      st->malformed = true;
      return 0;  // ends the transfer
    }
    (*st->on_message)(message);
  }
  st->buffer.erase(0, start);
  // One message of a key watch is small; a line this long is not etcd's.
  if (st->buffer.size() > (1u << 20)) {
    st->malformed = true;
    return 0;
  }
  return size * count;
}

int StreamProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* st = static_cast<StreamState*>(user);
  return (*st->stop)() ? 1 : 0;  // non-zero aborts the transfer
}

}  // namespace

Status EtcdClient::Stream(const std::string& path, const nlohmann::json& request,
                          const std::function<void(const nlohmann::json&)>& on_message,
                          const std::function<bool()>& stop) {
  const size_t index = current_.load() % target_.endpoints.size();
  const std::string& endpoint = target_.endpoints[index];
  const std::string where = (target_.tls ? "etcds://" : "etcd://") + endpoint + path;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return {Code::kIo, Describe() + ": cannot create a curl handle"};
  const std::string url = (target_.tls ? "https://" : "http://") + endpoint + path;
  const std::string body = request.dump();
  StreamState state{{}, &on_message, &stop};
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, StreamChunk);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, StreamProgress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &state);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPIDLE, 10L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPINTVL, 5L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_PROXY, "");
  if (target_.tls) {
    if (!tls_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, tls_.ca_file.c_str());
    if (!tls_.cert_file.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERT, tls_.cert_file.c_str());
    if (!tls_.key_file.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY, tls_.key_file.c_str());
  }
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  Status out;
  if (state.malformed) {
    out = {Code::kIo, where + ": the stream holds a line that is not a JSON object"};
  } else if (rc != CURLE_OK && !stop()) {
    out = {Code::kIo, where + ": " + curl_easy_strerror(rc)};
  } else if (rc == CURLE_OK && status != 200) {
    out = {Code::kIo, where + ": HTTP " + std::to_string(status)};
  } else if (rc == CURLE_OK) {
    out = {Code::kIo, where + ": the stream ended"};
  }
  if (!out.ok()) current_.store((index + 1) % target_.endpoints.size());
  return out;
}

}  // namespace fleetwave::store
