// Label and field selectors as the list and watch verbs accept them: the engine's parser
// (engine/label_query.h), which the daemon's API filters share, under kubesim's names.
#pragma once

#include "engine/label_query.h"

namespace fleetwave::kubesim {

using Requirement = engine::SelectorRequirement;
using LabelSelector = engine::LabelQuery;
using FieldSelector = engine::FieldQuery;

}  // namespace fleetwave::kubesim
