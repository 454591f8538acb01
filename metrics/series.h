// Bookkeeping over one prometheus-cpp family, so that series can be deleted by what they
// belong to: prometheus-cpp deletes a series only through the pointer Add() returned, and
// fleetwave must delete every series of an app, workload or cluster when it goes away.
//
//  - Series<T>: the family's series by their label values (in the family's label order), with
//    deletion of every series whose label i has a given value.
//  - StateSet: a state-set metric (OpenMetrics stateset, as gauges): per identity (the leading
//    label values) exactly one series exists, the current state's, at value 1; moving to
//    another state deletes the old series.
//
// Thread-safety: none; Metrics serialises every call under its own mutex. (prometheus-cpp's
// families are themselves safe against a concurrent scrape.)
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/labels.h>

namespace fleetwave::metrics {

using LabelValues = std::vector<std::string>;

template <typename T>
class Series {
 public:
  Series(prometheus::Family<T>& family, std::vector<std::string> label_names)
      : family_(&family), names_(std::move(label_names)) {}

  // The series with these label values (one per label name), created on first use; `args`
  // are the metric's constructor arguments (a histogram's buckets).
  template <typename... Args>
  T& Get(const LabelValues& values, Args&&... args) {
    auto it = series_.find(values);
    if (it != series_.end()) return *it->second;
    prometheus::Labels labels;
    for (std::size_t i = 0; i < names_.size() && i < values.size(); ++i) {
      labels[names_[i]] = values[i];
    }
    T& metric = family_->Add(labels, std::forward<Args>(args)...);
    series_.emplace(values, &metric);
    return metric;
  }

  bool Has(const LabelValues& values) const { return series_.count(values) != 0; }

  void Erase(const LabelValues& values) {
    auto it = series_.find(values);
    if (it == series_.end()) return;
    family_->Remove(it->second);
    series_.erase(it);
  }

  // Deletes every series whose label `index` equals `value`.
  void EraseWhere(std::size_t index, const std::string& value) {
    for (auto it = series_.begin(); it != series_.end();) {
      if (index < it->first.size() && it->first[index] == value) {
        family_->Remove(it->second);
        it = series_.erase(it);
      } else {
        ++it;
      }
    }
  }

  // The label values of every series whose label `index` equals `value`.
  std::vector<LabelValues> Where(std::size_t index, const std::string& value) const {
    std::vector<LabelValues> out;
    for (const auto& [values, metric] : series_) {
      if (index < values.size() && values[index] == value) out.push_back(values);
    }
    return out;
  }

  // How many series have `value` as their first label (cheap: the map is ordered by it).
  std::size_t CountFirst(const std::string& value) const {
    std::size_t n = 0;
    for (auto it = series_.lower_bound(LabelValues{value});
         it != series_.end() && !it->first.empty() && it->first[0] == value; ++it) {
      ++n;
    }
    return n;
  }

  std::size_t size() const { return series_.size(); }

 private:
  prometheus::Family<T>* family_;
  std::vector<std::string> names_;
  std::map<LabelValues, T*> series_;
};

class StateSet {
 public:
  // The first `identity_labels` of `label_names` say whose state it is (appset, application);
  // the rest are the state (health).
  StateSet(prometheus::Family<prometheus::Gauge>& family, std::vector<std::string> label_names,
           std::size_t identity_labels)
      : series_(family, std::move(label_names)), identity_labels_(identity_labels) {}

  // Makes `state` the only series of `identity`. REQUIRES identity.size() == identity_labels.
  void Set(const LabelValues& identity, const LabelValues& state) {
    LabelValues full = identity;
    full.insert(full.end(), state.begin(), state.end());
    auto it = current_.find(identity);
    if (it != current_.end()) {
      if (it->second == full) return;
      series_.Erase(it->second);
    }
    series_.Get(full).Set(1);
    current_[identity] = std::move(full);
  }

  void Erase(const LabelValues& identity) {
    auto it = current_.find(identity);
    if (it == current_.end()) return;
    series_.Erase(it->second);
    current_.erase(it);
  }

  // Deletes the state of every identity whose label `index` (< identity_labels) is `value`.
  void EraseWhere(std::size_t index, const std::string& value) {
    for (auto it = current_.begin(); it != current_.end();) {
      if (index < it->first.size() && it->first[index] == value) {
        series_.Erase(it->second);
        it = current_.erase(it);
      } else {
        ++it;
      }
    }
  }

  // The identities whose label `index` is `value`.
  std::vector<LabelValues> Where(std::size_t index, const std::string& value) const {
    std::vector<LabelValues> out;
    for (const auto& [identity, full] : current_) {
      if (index < identity.size() && identity[index] == value) out.push_back(identity);
    }
    return out;
  }

  std::size_t identity_labels() const { return identity_labels_; }

 private:
  Series<prometheus::Gauge> series_;
  std::size_t identity_labels_;
  std::map<LabelValues, LabelValues> current_;  // identity -> the current series' labels
};

}  // namespace fleetwave::metrics
