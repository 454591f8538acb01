#include "cluster-clients/informer.h"

namespace fleetwave::clients {
namespace {

std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

std::string ResourceVersionOf(const Json& object) {
  const Json meta = object.value("metadata", Json::object());
  return meta.value("resourceVersion", "");
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
  inf->client_->transport()->Post([inf] { inf->Relist(); });
  return inf;
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
    if (self->watch_) self->watch_->Cancel();
    self->watch_.reset();
    if (self->retry_timer_) self->client_->transport()->CancelTimer(self->retry_timer_);
    self->retry_timer_ = 0;
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

Projection Informer::Project(const Json& object) const {
  Projection p;
  const Json meta = object.value("metadata", Json::object());
  p.ns = meta.value("namespace", "");
  p.name = meta.value("name", "");
  p.uid = meta.value("uid", "");
  p.resource_version = meta.value("resourceVersion", "");
  if (meta.contains("generation") && meta["generation"].is_number_integer())
    p.generation = meta["generation"].get<long long>();
  p.fields = options_.project ? options_.project(object) : Json::object();
  return p;
}

void Informer::Emit(std::function<void()> fn) {
  auto self = shared_from_this();
  executor_->Submit([self, fn = std::move(fn)] {
    if (!self->stopped_) fn();
  });
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
    if (!self->stopped_) (self.get()->*step)();
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
    if (self->stopped_) return;
    if (!lr.result.ok()) {
      self->RetryLater(&Informer::Relist, lr.result);
      return;
    }
    self->backoff_.Reset();
    std::map<std::string, Projection> fresh;
    for (const Json& item : lr.items) {
      Projection p = self->Project(item);
      fresh[Key(p.ns, p.name)] = std::move(p);
    }
    // Diff against the cache: what a broken watch missed becomes ordinary events.
    std::vector<std::function<void()>> events;
    {
      std::lock_guard<std::mutex> lock(self->mu_);
      const auto& h = self->handlers_;
      for (const auto& [k, old] : self->cache_) {
        if (!fresh.count(k) && h.on_delete) events.push_back([f = h.on_delete, old] { f(old); });
      }
      for (const auto& [k, now] : fresh) {
        auto it = self->cache_.find(k);
        if (it == self->cache_.end()) {
          if (h.on_add) events.push_back([f = h.on_add, now] { f(now); });
        } else if (it->second.resource_version != now.resource_version ||
                   it->second.uid != now.uid) {
          if (h.on_update)
            events.push_back([f = h.on_update, old = it->second, now] { f(old, now); });
        }
      }
      self->cache_ = std::move(fresh);
      self->resource_version_ = lr.resource_version;
      self->stats_.events += static_cast<long>(events.size());
    }
    for (auto& e : events) self->Emit(std::move(e));
    if (!self->synced_.exchange(true) && self->handlers_.on_synced)
      self->Emit(self->handlers_.on_synced);
    self->StartWatch();
  });
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
        if (auto self = weak.lock()) self->OnEvent(std::move(ev));
      },
      [weak](Result r) {
        if (auto self = weak.lock()) self->OnWatchEnd(std::move(r));
      });
}

void Informer::OnEvent(WatchEvent ev) {
  if (stopped_) return;
  if (ev.type == "ERROR") {
    const int code = ev.object.value("code", 0);
    Result r = ResultFromHttp(code ? code : 500, ev.object.dump(), std::nullopt);
    if (watch_) watch_->Cancel();
    watch_.reset();
    if (code == 410) {
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
      RetryLater(&Informer::StartWatch, r);
    }
    return;
  }
  const std::string rv = ResourceVersionOf(ev.object);
  if (ev.type == "BOOKMARK") {
    std::lock_guard<std::mutex> lock(mu_);
    if (!rv.empty()) resource_version_ = rv;
    return;
  }
  backoff_.Reset();
  Projection p = Project(ev.object);
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
