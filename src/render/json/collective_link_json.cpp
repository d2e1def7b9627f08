#include "render/json/collective_link_json.h"

namespace stepscope::render {

namespace {

void optional_field(JsonWriter& json, std::string_view name, std::optional<double> value) {
  json.key(name);
  if (value) {
    json.value(*value);
  } else {
    json.null();
  }
}

}  // namespace

void write_link_fields(JsonWriter& json, const job::CollectiveRow& row) {
  optional_field(json, "link_peak_gb_per_s", row.link_peak_gb_per_s);
  optional_field(json, "busbw_share_of_link_peak", row.busbw_share_of_link_peak);
}

}  // namespace stepscope::render
