// The web view: the one page `GET /` serves (api_routes.h). It shows every ApplicationSet as its
// waves — steps as columns, each app a tile with its health and sync status in colour and in
// words — and follows the API's `?watch=1` streams (falling back to polling the list endpoints
// every 2 s when a stream is missing or drops). With a token entered (kept in the tab's
// sessionStorage) its sync / skip / pause / resume buttons call the authenticated POST routes.
//
// Self-contained: the HTML, its stylesheet and its script are compiled into the binary; the page
// loads nothing else, so it works offline and behind any proxy. Its Content-Security-Policy
// allows exactly the page's own inline <style> and <script> (by their SHA-256) and requests to
// the page's own origin, nothing more (WebViewTest.PolicyNamesThePageItself).
//
// Thread-safety: WebView() builds the page once (a function-local static) and returns a const
// reference; it may be called from any thread.
#pragma once

#include <string>

namespace fleetwave::api {

struct WebViewPage {
  std::string html;                     // the whole document, UTF-8
  std::string content_security_policy;  // the value of the Content-Security-Policy header
};

const WebViewPage& WebView();

}  // namespace fleetwave::api
