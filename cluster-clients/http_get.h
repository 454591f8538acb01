// A minimal blocking HTTP client for the command line's talk with the daemon's own API (the
// `fleetwave get|sync|...` commands): one request at a time on the calling thread, plain HTTP
// or HTTPS with the system trust store. libcurl stays behind this header, like everywhere in
// cluster-clients (the layering rule: nothing above this folder sees libcurl).
//
// HttpFetch() collects the whole response; HttpStreamLines() hands a 2xx body to a callback
// line by line as it arrives (a ?watch=1 stream) until the server ends it, the callback returns
// false, or `cancel` is set (libcurl's progress callback checks it about once a second, so
// another thread can stop a quiet stream).
//
// Thread-safety: each call is independent; calls may run on several threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster-clients/transport.h"

namespace fleetwave::clients {

struct SimpleRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  // The whole request for HttpFetch; for a stream only the connection (a watch lasts).
  std::chrono::milliseconds timeout{30000};
  const std::atomic<bool>* cancel = nullptr;  // set by another thread: stop now (kCanceled)
  // What one response may make us hold: the collected body, and one line of a stream. Past
  // either the transfer stops with NetError::kTooLarge.
  std::size_t max_body_bytes = 512u << 20;
  std::size_t max_line_bytes = 16u << 20;
  // HTTPS: a CA bundle to trust instead of the system's (a daemon's private CA), and a client
  // certificate and key (a daemon with tls.clientCAFile). Empty: not used.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
};

struct SimpleResponse {
  int status = 0;  // 0 when no response arrived (see error)
  NetError error = NetError::kNone;
  std::string error_message;  // libcurl's text for `error`
  std::string body;           // for a stream: the body only when not 2xx
  std::string content_type;
};

SimpleResponse HttpFetch(const SimpleRequest& request);

// `on_line` gets each line without its newline; returning false ends the stream (kCanceled is
// then not reported: the caller chose to stop). A last line without a newline is delivered too.
SimpleResponse HttpStreamLines(const SimpleRequest& request,
                               const std::function<bool(std::string_view line)>& on_line);

}  // namespace fleetwave::clients
