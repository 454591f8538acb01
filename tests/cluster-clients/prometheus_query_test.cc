// A step's analysis measurement through the real client (issue 29: "unreachable Prometheus or a
// query error counts as a failed measurement, never as a pass"): PrometheusInstantQuery against
// a plain socket on this machine that answers as told, judged by engine::Measure as the daemon
// does. Each way Prometheus can fail to give one number ends in a failed measurement whose
// error says what happened; only a single number meeting the condition passes.
#include "cluster-clients/prometheus_query.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <thread>

namespace fleetwave::clients {
namespace {

using std::chrono::milliseconds;

int BoundLoopbackSocket(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

// Answers one connection with `response` and closes it; with no response it reads the request
// and then says nothing until the client gives up (a Prometheus that hangs).
class OneShotPrometheus {
 public:
  explicit OneShotPrometheus(std::optional<std::string> response) {
    fd_ = BoundLoopbackSocket(&port_);
    ::listen(fd_, 1);
    thread_ = std::thread([this, response = std::move(response)] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      [[maybe_unused]] ssize_t got = ::recv(c, buf, sizeof buf, 0);  // the request
      if (response) {
        [[maybe_unused]] ssize_t sent = ::send(c, response->data(), response->size(), MSG_NOSIGNAL);
      } else {
        while (::recv(c, buf, sizeof buf, 0) > 0) {
        }  // until the client hangs up
      }
      ::close(c);
    });
  }
  ~OneShotPrometheus() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

std::string Http(int status, const std::string& reason, const std::string& content_type,
                 const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nConnection: close\r\nContent-Type: " + content_type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string Json200(const std::string& body) { return Http(200, "OK", "application/json", body); }

engine::AnalysisSpec Spec() {
  engine::AnalysisSpec spec;
  spec.query = "sum(rate(errors[5m]))";
  std::string why;
  spec.success = *engine::ParseSuccessCondition("< 0.5", &why);
  return spec;
}

engine::AnalysisMeasurement MeasureAt(const std::string& url, milliseconds timeout) {
  const engine::AnalysisSpec spec = Spec();
  return engine::Measure(spec, PrometheusInstantQuery(url, spec.query, timeout),
                         engine::Time{} + std::chrono::hours(24 * 365 * 56));
}

engine::AnalysisMeasurement MeasureAnswer(const std::optional<std::string>& response) {
  OneShotPrometheus server(response);
  return MeasureAt(server.url(), milliseconds(10000));
}

TEST(PrometheusQuery, ASingleValueMeetingTheConditionPasses) {
  const auto m =
      MeasureAnswer(Json200(R"({"status":"success","data":{"resultType":"vector","result":[)"
                            R"({"metric":{},"value":[1772366400.123,"0.25"]}]}})"));
  EXPECT_TRUE(m.passed) << m.error;
  EXPECT_EQ(m.value, 0.25);
  EXPECT_EQ(m.error, "");
}

TEST(PrometheusQuery, ConnectionRefusedIsAFailedMeasurement) {
  // A port bound here but not listening: the kernel refuses the connection, and nobody else can
  // take the port meanwhile.
  int port = 0;
  const int fd = BoundLoopbackSocket(&port);
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const auto m = MeasureAt(url, milliseconds(10000));
  ::close(fd);
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.value, std::nullopt);
  EXPECT_EQ(m.error.rfind("Prometheus did not answer: " + url + " did not answer (", 0), 0u)
      << m.error;
}

TEST(PrometheusQuery, ATimeoutIsAFailedMeasurement) {
  OneShotPrometheus server(std::nullopt);
  const auto m = MeasureAt(server.url(), milliseconds(300));
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.value, std::nullopt);
  EXPECT_EQ(m.error.rfind("Prometheus did not answer: " + server.url() + " did not answer (", 0),
            0u)
      << m.error;
  EXPECT_NE(m.error.find("timed out"), std::string::npos) << m.error;
}

TEST(PrometheusQuery, AnHttp500IsAFailedMeasurement) {
  const auto m = MeasureAnswer(Http(500, "Internal Server Error", "text/plain", "boom\n"));
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.value, std::nullopt);
  EXPECT_NE(m.error.find("answered HTTP 500"), std::string::npos) << m.error;
}

TEST(PrometheusQuery, AnHttpErrorIsNeverAPassEvenWithASuccessDocument) {
  // A proxy in front of Prometheus that fails with a stale body must not pass the step.
  const auto m = MeasureAnswer(Http(503, "Service Unavailable", "application/json",
                                    R"({"status":"success","data":{"resultType":"vector",)"
                                    R"("result":[{"metric":{},"value":[1,"0.1"]}]}})"));
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.value, std::nullopt);
  EXPECT_NE(m.error.find("answered HTTP 503"), std::string::npos) << m.error;
}

TEST(PrometheusQuery, PrometheusOwnErrorDocumentNamesTheQueryError) {
  const auto m = MeasureAnswer(
      Http(400, "Bad Request", "application/json",
           R"({"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected"})"));
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.error, "the query failed: 1:5: parse error: unexpected");
}

TEST(PrometheusQuery, AnEmptyVectorIsAFailedMeasurement) {
  const auto m =
      MeasureAnswer(Json200(R"({"status":"success","data":{"resultType":"vector","result":[]}})"));
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.error, "the query returned 0 series; exactly one value is needed");
}

TEST(PrometheusQuery, ANonNumericValueIsAFailedMeasurement) {
  const auto m =
      MeasureAnswer(Json200(R"({"status":"success","data":{"resultType":"vector","result":[)"
                            R"({"metric":{},"value":[1772366400,"not-a-number"]}]}})"));
  EXPECT_FALSE(m.passed);
  EXPECT_EQ(m.value, std::nullopt);
  EXPECT_EQ(m.error, "the value \"not-a-number\" is not a finite number");
}

TEST(PrometheusQuery, ABodyThatIsNotJsonIsAFailedMeasurement) {
  const auto m = MeasureAnswer(Http(200, "OK", "text/html", "<html>login</html>"));
  EXPECT_FALSE(m.passed);
  EXPECT_NE(m.error.find("answered HTTP 200 without a Prometheus JSON document"), std::string::npos)
      << m.error;
}

TEST(PrometheusQuery, NoPrometheusConfiguredIsAFailedMeasurementSayingWhatToSet) {
  const auto m = MeasureAt("", milliseconds(1000));
  EXPECT_FALSE(m.passed);
  EXPECT_NE(m.error.find("analysis.prometheus"), std::string::npos) << m.error;
}

}  // namespace
}  // namespace fleetwave::clients
