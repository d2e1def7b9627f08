#include "stepscope/figures/schema.h"

#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "stepscope/analysis/catalogue.h"
#include "stepscope/figures/documents.h"

namespace stepscope::figures {

namespace {

// Appends, rather than `+` chains on temporaries (which trip g++ 12's -Wrestrict).
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  (out.append(std::string_view(parts)), ...);
  return out;
}

// Integer members these units scale are written as numbers with decimals.
bool integer_written_as_number(Unit unit) {
  return unit == Unit::kMicrosecondsFromNs || unit == Unit::kMillisecondsFromNs;
}

std::string markdown_type(const TypeInfo& type, Unit unit) {
  std::string text;
  switch (type.kind) {
    case Kind::kBoolean:
      text = "boolean";
      break;
    case Kind::kInteger:
      text = integer_written_as_number(unit) ? "number" : "integer";
      break;
    case Kind::kNumber:
      text = "number";
      break;
    case Kind::kString:
      text = "string";
      break;
    case Kind::kArray:
      text = cat("array of ", markdown_type(*type.element, unit));
      break;
    case Kind::kObject:
      text = cat("`", type.struct_name, "`", type.positional ? " (an array)" : "");
      break;
  }
  if (type.nullable) text += " or null";
  return text;
}

// The object type a field leads to (through arrays), or null.
const TypeInfo* nested_object(const TypeInfo& type) {
  const TypeInfo* t = &type;
  while (t->kind == Kind::kArray) t = t->element;
  return t->kind == Kind::kObject ? t : nullptr;
}

void table_rows(std::string& out, const TypeInfo& type, std::vector<const TypeInfo*>& nested) {
  for (const Field& field : type.fields()) {
    if (field.flatten) {
      table_rows(out, *field.type, nested);
      continue;
    }
    out += cat("| `", field.name, "` | ", markdown_type(*field.type, field.unit), " | ",
               unit_label(field.unit), " | ", field.doc);
    if (field.present != nullptr) out += " (not always present)";
    out += " |\n";
    if (const TypeInfo* object = nested_object(*field.type)) nested.push_back(object);
  }
}

void object_tables(std::string& out, const TypeInfo& root, std::set<std::string_view>& seen) {
  std::vector<const TypeInfo*> pending{&root};
  while (!pending.empty()) {
    const TypeInfo* type = pending.front();
    pending.erase(pending.begin());
    if (!seen.insert(type->struct_name).second) continue;
    out += cat("\n#### `", type->struct_name, "`\n\n");
    if (type->positional) out += "An array of these values, in this order.\n\n";
    out += "| field | type | unit | meaning |\n|---|---|---|---|\n";
    std::vector<const TypeInfo*> nested;
    table_rows(out, *type, nested);
    pending.insert(pending.end(), nested.begin(), nested.end());
  }
}

std::string python_type(const TypeInfo& type, Unit unit) {
  std::string text;
  switch (type.kind) {
    case Kind::kBoolean:
      text = "bool";
      break;
    case Kind::kInteger:
      text = integer_written_as_number(unit) ? "float" : "int";
      break;
    case Kind::kNumber:
      text = "float";
      break;
    case Kind::kString:
      text = "str";
      break;
    case Kind::kArray:
      text = cat("list[", python_type(*type.element, unit), "]");
      break;
    case Kind::kObject:
      text = std::string(type.struct_name);
      break;
  }
  if (type.nullable) text += " | None";
  return text;
}

bool python_identifier(std::string_view name) {
  static const std::set<std::string_view> kKeywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  if (name.empty() || kKeywords.contains(name) || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    const bool ok =
        c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// (name, Python type) of every key, flattened structs expanded.
void python_members(std::vector<std::pair<std::string, std::string>>& out, const TypeInfo& type) {
  for (const Field& field : type.fields()) {
    if (field.flatten) {
      python_members(out, *field.type);
      continue;
    }
    const std::string value = python_type(*field.type, field.unit);
    out.emplace_back(field.name,
                     field.present != nullptr ? cat("NotRequired[", value, "]") : value);
  }
}

// Class syntax where every key is an identifier (as ruff prefers), else the functional one.
void python_typed_dict(std::string& out, std::string_view name,
                       const std::vector<std::pair<std::string, std::string>>& members) {
  bool identifiers = true;
  for (const auto& member : members) identifiers = identifiers && python_identifier(member.first);
  if (identifiers) {
    out += cat("\n\nclass ", name, "(TypedDict):\n");
    for (const auto& [key, value] : members) out += cat("    ", key, ": ", value, "\n");
    return;
  }
  out += cat("\n\n", name, " = TypedDict(\n    \"", name, "\",\n    {\n");
  for (const auto& [key, value] : members) out += cat("        \"", key, "\": ", value, ",\n");
  out += "    },\n)\n";
}

// A positional struct: a tuple of its members' types.
void python_tuple(std::string& out, std::string_view name,
                  const std::vector<std::pair<std::string, std::string>>& members) {
  out += cat("\n\n", name, " = tuple[");
  for (std::size_t i = 0; i < members.size(); ++i) {
    out += cat(i == 0 ? "" : ", ", members[i].second);
  }
  out += "]\n";
}

// Dependencies first, so that every name is defined before it is used.
void python_class(std::string& out, const TypeInfo& type, std::set<std::string_view>& seen) {
  if (!seen.insert(type.struct_name).second) return;
  for (const Field& field : type.fields()) {
    if (const TypeInfo* object = nested_object(*field.type)) python_class(out, *object, seen);
  }
  std::vector<std::pair<std::string, std::string>> members;
  python_members(members, type);
  if (type.positional) {
    python_tuple(out, type.struct_name, members);
  } else {
    python_typed_dict(out, type.struct_name, members);
  }
}

}  // namespace

std::string render_schema_markdown() {
  std::string out;
  out +=
      "Each analysis below is a key of a rank object; the tables are generated from the "
      "figure descriptions in `include/stepscope/figures/` (fields marked \"not always "
      "present\" depend on the mode or on applicability).\n";
  std::set<std::string_view> seen;
  for (const AnalysisDescription& analysis : analysis_catalogue()) {
    if (analysis.name.empty() || analysis.type == nullptr) continue;
    out += cat("\n### `", analysis.name, "`\n\n", analysis.doc, ".\n");
    object_tables(out, *analysis.type(), seen);
  }
  out +=
      "\n## The other objects, field by field\n\nThe parts of the documents that are not a "
      "rank's analyses, generated from the same descriptions.\n";
  for (const DocumentPart& part : document_parts()) {
    out += cat("\n### `", part.name, "`\n\n", part.doc, ".\n");
    object_tables(out, part.type(), seen);
  }
  return out;
}

std::string render_python_types() {
  std::string out =
      "\"\"\"Types of the figures in `stepscope analyze --json`, one TypedDict per object.\n\n"
      "Generated from include/stepscope/figures/ by `stepscope_figures_gen --write .`;\n"
      "do not edit.\n\"\"\"\n\nfrom typing import NotRequired, TypedDict\n";
  std::set<std::string_view> seen;
  std::vector<std::pair<std::string, std::string>> rank;
  for (const AnalysisDescription& analysis : analysis_catalogue()) {
    if (analysis.name.empty() || analysis.type == nullptr) continue;
    const TypeInfo& type = *analysis.type();
    python_class(out, type, seen);
    rank.emplace_back(std::string(analysis.name), std::string(type.struct_name));
  }
  python_typed_dict(out, "RankFigures", rank);
  for (const DocumentPart& part : document_parts()) python_class(out, part.type(), seen);
  return out;
}

std::string replace_generated_section(const std::string& document, const std::string& section) {
  const std::string_view begin = kGeneratedBegin;
  const std::string_view end = kGeneratedEnd;
  const std::size_t from = document.find(begin);
  const std::size_t to = document.find(end);
  if (from == std::string::npos || to == std::string::npos || to < from) {
    return cat(document, "\n", begin, "\n", section, end, "\n");
  }
  return cat(std::string_view(document).substr(0, from), begin, "\n", section,
             std::string_view(document).substr(to));
}

}  // namespace stepscope::figures
