#include "harness/config/config_changes.h"

#include <algorithm>
#include <set>

namespace speedbench {

namespace {

void add_changes(const nlohmann::json& before, const nlohmann::json& after,
                 const std::string& prefix, std::vector<ConfigFieldChange>& changes) {
  if (before.is_object() && after.is_object()) {
    std::set<std::string> keys;
    for (const auto& item : before.items()) keys.insert(item.key());
    for (const auto& item : after.items()) keys.insert(item.key());
    for (const auto& key : keys) {
      const auto value_of = [&key](const nlohmann::json& object) {
        const auto found = object.find(key);
        return found == object.end() ? nlohmann::json() : *found;
      };
      add_changes(value_of(before), value_of(after), prefix.empty() ? key : prefix + "." + key,
                  changes);
    }
  } else if (before != after) {
    changes.push_back({prefix, before, after});
  }
}

}  // namespace

std::vector<ConfigFieldChange> config_field_changes(const nlohmann::json& before,
                                                    const nlohmann::json& after) {
  std::vector<ConfigFieldChange> changes;
  add_changes(before, after, "", changes);
  // Key by key gives "a.b" before "a_b"; sorting the whole paths keeps that for any key.
  std::sort(changes.begin(), changes.end(),
            [](const auto& x, const auto& y) { return x.field < y.field; });
  return changes;
}

std::string change_text(const ConfigFieldChange& change) {
  return change.before.dump() + " -> " + change.after.dump();
}

}  // namespace speedbench
