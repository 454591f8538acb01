#include "cluster-clients/informer.h"

#include "cluster-clients/guard.h"
#include "cluster-clients/json_fields.h"

namespace fleetwave::clients {
namespace {

std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

// An object skipped because of its shape: reported, never cached, never fatal.
Result Skipped(const std::string& message) {
  return ErrorResult(Outcome::kPermanent, Problem::kOther, message + "; skipped");
}

}  // namespace

Projector ProjectFields(std::vector<std::string> pointers) {
  return [pointers = std::move(pointers)](const Json& object) {
    Json out = Json::object();
    for (const std::string& p : pointers) {
      const Json::json_pointer ptr(p);
      if (object.contains(ptr)) out[ptr] = object.at(ptr);
    }
    return out;
  };
}

std::shared_ptr<Informer> Informer::Start(std::shared_ptr<ClusterClient> client,
                                          InformerOptions options, InformerHandlers handlers,
                                          Executor* executor) {
  std::shared_ptr<Informer> inf(
      new Informer(std::move(client), std::move(options), std::move(handlers), executor));
  inf->client_->transport()->Post(
      [inf] { inf->Guarded(&Informer::Relist, [&] { inf->Relist(); }); });
  return inf;
}

void Informer::Guarded(void (Informer::*retry)(), const std::function<void()>& body) {
  auto exception = RunGuarded(body);
  if (!exception) return;
  const std::string what = "informer " + options_.resource.resource;
  client_->Warn(what + ": internal error: " + *exception);
  // The step that failed is retried with backoff like any failed list or watch: the cache
  // converges again once the cause (an odd object, a throwing projector) is gone.
  if (auto again = RunGuarded([&] {
        if (watch_) watch_->Cancel();
        watch_.reset();
        if (retry_timer_ == 0 && !stopped_)
          RetryLater(retry, ErrorResult(Outcome::kPermanent, Problem::kOther,
                                        what + ": internal error (" + *exception + ")"));
      }))
    client_->Warn(what + ": recovering from the internal error failed too: " + *again);
}

Informer::Informer(std::shared_ptr<ClusterClient> client, InformerOptions options,
                   InformerHandlers handlers, Executor* executor)
    : client_(std::move(client)),
      options_(std::move(options)),
      handlers_(std::move(handlers)),
      executor_(executor),
      backoff_(options_.backoff) {}

void Informer::Stop() {
  if (stopped_.exchange(true)) return;
  auto self = shared_from_this();
  client_->transport()->Post([self] {
    auto exception = RunGuarded([&] {
      if (self->watch_) self->watch_->Cancel();
      self->watch_.reset();
      if (self->retry_timer_) self->client_->transport()->CancelTimer(self->retry_timer_);
      self->retry_timer_ = 0;
    });
    if (exception) self->client_->Warn("informer stop: internal error: " + *exception);
  });
}

std::vector<Projection> Informer::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Projection> out;
  out.reserve(cache_.size());
  for (const auto& [k, p] : cache_) out.push_back(p);
  return out;
}

std::optional<Projection> Informer::Get(const std::string& ns, const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cache_.find(Key(ns, name));
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

std::string Informer::resource_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return resource_version_;
}

InformerStats Informer::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::optional<Projection> Informer::Project(const Json& object, std::string* error) const {
  // Objects come from the cluster: every field is read as untrusted, and an object of the
  // wrong shape is left out with an error naming it and the field (informer_test.cc,
  // MalformedObjectsAreSkippedAndReported).
  FieldReader fields(object);
  Projection p;
  p.ns = fields.String({"metadata", "namespace"});
  p.name = fields.RequiredString({"metadata", "name"});
  p.uid = fields.String({"metadata", "uid"});
  p.resource_version = fields.String({"metadata", "resourceVersion"});
  p.generation = fields.Int({"metadata", "generation"}).value_or(0);
  const std::string who = p.name.empty() ? "" : " " + Key(p.ns, p.name);
  if (!fields.ok()) {
    *error = options_.resource.resource + who + ": " + fields.error();
    return std::nullopt;
  }
  // The projectors are the caller's code on the loop thread: a throw costs this object only.
  if (auto exception = RunGuarded([&] {
        p.fields = options_.project ? options_.project(object) : Json::object();
        if (options_.project_typed) {
          p.typed = std::make_shared<const std::any>(options_.project_typed(object));
        }
      })) {
    *error = options_.resource.resource + who + ": the projector failed: " + *exception;
    return std::nullopt;
  }
  return p;
}

void Informer::Emit(std::function<void()> fn) {
  auto self = shared_from_this();
  executor_->Submit([self, fn = std::move(fn)] {
    if (!self->stopped_) fn();
  });
}

void Informer::ReportSkipped(const std::string& message) {
  if (handlers_.on_error) Emit([h = handlers_.on_error, r = Skipped(message)] { h(r); });
}

void Informer::RetryLater(void (Informer::*step)(), const Result& why) {
  if (handlers_.on_error) {
    Emit([h = handlers_.on_error, why] { h(why); });
  }
  std::optional<Duration> retry_after;
  if (why.retry_after) retry_after = *why.retry_after;
  const Duration delay = backoff_.Next(retry_after);
  auto self = shared_from_this();
  Transport* t = client_->transport();
  retry_timer_ = t->RunAt(t->Now() + delay, [self, step] {
    self->retry_timer_ = 0;
    if (!self->stopped_) self->Guarded(step, [&] { (self.get()->*step)(); });
  });
}

void Informer::Relist() {
  if (stopped_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.lists;
  }
  ListOptions lo;
  lo.ns = options_.ns;
  lo.label_selector = options_.label_selector;
  lo.field_selector = options_.field_selector;
  lo.limit = options_.page_size;
  auto self = shared_from_this();
  client_->ListOnLoop(options_.resource, lo, [self](ListResult lr) {
    self->Guarded(&Informer::Relist, [&] { self->OnList(std::move(lr)); });
  });
}

void Informer::OnList(ListResult lr) {
  if (stopped_) return;
  if (!lr.result.ok()) {
    RetryLater(&Informer::Relist, lr.result);
    return;
  }
  backoff_.Reset();
  std::map<std::string, Projection> fresh;
  for (std::size_t i = 0; i < lr.items.size(); ++i) {
    std::string error;
    std::optional<Projection> p = Project(lr.items[i], &error);
    if (!p) {
      ReportSkipped("list item " + std::to_string(i) + ": " + error);
      continue;
    }
    fresh[Key(p->ns, p->name)] = std::move(*p);
  }
  // Diff against the cache: what a broken watch missed becomes ordinary events.
  std::vector<std::function<void()>> events;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto& h = handlers_;
    // Named copies, not structured bindings, in the captures: clang 14 (the fuzz build)
    // cannot capture a structured binding.
    for (const auto& entry : cache_) {
      if (!fresh.count(entry.first) && h.on_delete)
        events.push_back([f = h.on_delete, old = entry.second] { f(old); });
    }
    for (const auto& entry : fresh) {
      const std::string& k = entry.first;
      const Projection& now = entry.second;
      auto it = cache_.find(k);
      if (it == cache_.end()) {
        if (h.on_add) events.push_back([f = h.on_add, now = now] { f(now); });
      } else if (it->second.resource_version != now.resource_version || it->second.uid != now.uid) {
        if (h.on_update)
          events.push_back([f = h.on_update, old = it->second, now = now] { f(old, now); });
      }
    }
    cache_ = std::move(fresh);
    resource_version_ = lr.resource_version;
    stats_.events += static_cast<long>(events.size());
  }
  for (auto& e : events) Emit(std::move(e));
  if (!synced_.exchange(true) && handlers_.on_synced) Emit(handlers_.on_synced);
  StartWatch();
}

void Informer::StartWatch() {
  if (stopped_) return;
  WatchOptions wo;
  wo.ns = options_.ns;
  wo.label_selector = options_.label_selector;
  wo.field_selector = options_.field_selector;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wo.resource_version = resource_version_;
    ++stats_.watches;
  }
  std::weak_ptr<Informer> weak = shared_from_this();
  watch_ = client_->WatchOnLoop(
      options_.resource, wo,
      [weak](WatchEvent ev) {
        if (auto self = weak.lock())
          self->Guarded(&Informer::StartWatch, [&] { self->OnEvent(std::move(ev)); });
      },
      [weak](Result r) {
        if (auto self = weak.lock())
          self->Guarded(&Informer::StartWatch, [&] { self->OnWatchEnd(std::move(r)); });
      });
}

void Informer::OnEvent(WatchEvent ev) {
  if (stopped_) return;
  if (ev.type == "ERROR") {
    // The object should be a Status; anything else is a broken stream, handled like a
    // failed watch (informer_test.cc, ErrorEventsThatAreNotAStatusRestartTheWatch).
    FieldReader status(ev.object);
    const std::string kind = status.String({"kind"});
    const std::optional<int64_t> code = status.Int({"code"});
    Result r;
    if (!ev.object.is_object() || !status.ok() || (!kind.empty() && kind != "Status")) {
      const std::string why = !status.ok() ? status.error() : "kind is \"" + kind + "\"";
      r = ErrorResult(Outcome::kTransient, Problem::kServerError,
                      "watch " + options_.resource.resource +
                          ": ERROR event whose object is not a Status: " + why);
    } else {
      const int http = code && *code >= 100 && *code <= 599 ? static_cast<int>(*code) : 500;
      r = ResultFromHttp(http, ev.object.dump(), std::nullopt);
    }
    if (watch_) watch_->Cancel();
    watch_.reset();
    if (r.http_status == 410) {
      // The resourceVersion we resume from is older than the server keeps: relist.
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++stats_.expired;
      }
      Relist();
    } else {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++stats_.watch_restarts;
      }
      client_->ReportWatchRestart(options_.resource.resource);
      RetryLater(&Informer::StartWatch, r);
    }
    return;
  }
  if (ev.type == "BOOKMARK") {
    FieldReader bookmark(ev.object);
    const std::string rv = bookmark.String({"metadata", "resourceVersion"});
    if (!bookmark.ok()) {
      ReportSkipped("watch " + options_.resource.resource +
                    ": BOOKMARK event: " + bookmark.error());
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (!rv.empty()) resource_version_ = rv;
    return;
  }
  backoff_.Reset();
  std::string error;
  std::optional<Projection> projected = Project(ev.object, &error);
  if (!projected) {
    ReportSkipped("watch " + ev.type + " event: " + error);
    return;
  }
  Projection p = std::move(*projected);
  const std::string rv = p.resource_version;
  const std::string key = Key(p.ns, p.name);
  std::function<void()> emit;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!rv.empty()) resource_version_ = rv;
    ++stats_.events;
    auto it = cache_.find(key);
    const auto& h = handlers_;
    if (ev.type == "DELETED") {
      if (it != cache_.end()) {
        if (h.on_delete) emit = [f = h.on_delete, p] { f(p); };
        cache_.erase(it);
      }
    } else if (ev.type == "ADDED" || ev.type == "MODIFIED") {
      if (it == cache_.end()) {
        if (h.on_add) emit = [f = h.on_add, p] { f(p); };
        cache_[key] = p;
      } else {
        if (h.on_update) emit = [f = h.on_update, old = it->second, p] { f(old, p); };
        it->second = p;
      }
    }
  }
  if (emit) Emit(std::move(emit));
}

void Informer::OnWatchEnd(Result r) {
  watch_.reset();
  if (stopped_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.watch_restarts;
  }
  client_->ReportWatchRestart(options_.resource.resource);
  if (r.ok()) {
    // The server ended the watch at timeoutSeconds: resume where it left off.
    StartWatch();
  } else if (r.problem == Problem::kExpired) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.expired;
    }
    Relist();
  } else {
    RetryLater(&Informer::StartWatch, r);
  }
}

}  // namespace fleetwave::clients
