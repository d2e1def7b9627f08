// The errors of the readers of documents stepscope writes itself: the file, the byte offset
// where it is known, and one wording for invalid JSON and trailing content.
#include "io/document_errors.h"

#include <gtest/gtest.h>

#include <string>

namespace stepscope::io {
namespace {

// Reads the root object's fields as the readers do (a value, then its fields: the document's own
// get_object() would refuse trailing content itself); the first error, or SUCCESS.
simdjson::error_code read_root_fields(simdjson::ondemand::document& document) {
  simdjson::ondemand::value root;
  if (auto code = document.get_value().get(root)) return code;
  simdjson::ondemand::object object;
  if (auto code = root.get_object().get(object)) return code;
  for (auto field : object) {
    if (auto code = field.error()) return code;
  }
  return simdjson::SUCCESS;
}

TEST(DocumentErrors, OffsetsInsideTheDocumentOnly) {
  const simdjson::padded_string json(std::string(R"({"a": 1})"));
  const std::string file = "doc.json";
  const DocumentErrors errors(json, file, "test document");
  EXPECT_EQ(errors.offset_of(json.data()), 0U);
  EXPECT_EQ(errors.offset_of(json.data() + 6), 6U);
  EXPECT_EQ(errors.offset_of(json.data() + json.size()), json.size());  // the end itself
  EXPECT_EQ(errors.offset_of(nullptr), std::nullopt);
  const std::string elsewhere = "elsewhere";
  EXPECT_EQ(errors.offset_of(elsewhere.data()), std::nullopt);
}

TEST(DocumentErrors, FailNamesTheFileAndKind) {
  const simdjson::padded_string json(std::string("{}"));
  const std::string file = "doc.json";
  const DocumentErrors errors(json, file, "test document");
  const Error error = errors.fail(3, "x must be a number", ErrorKind::kUnsupported);
  EXPECT_EQ(error.file, "doc.json");
  EXPECT_EQ(error.byte_offset, 3U);
  EXPECT_EQ(error.kind, ErrorKind::kUnsupported);
  EXPECT_EQ(error.message, "x must be a number");
  EXPECT_EQ(errors.fail(std::nullopt, "m").kind, ErrorKind::kNotTrace);
}

TEST(DocumentErrors, InvalidJsonIsNamedInTheDocumentsWords) {
  const simdjson::padded_string json(std::string(R"({"a": 1 "b": 2})"));  // a comma missing
  const std::string file = "doc.json";
  const DocumentErrors errors(json, file, "test document");
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document document;
  ASSERT_EQ(parser.iterate(json).get(document), simdjson::SUCCESS);
  const simdjson::error_code code = read_root_fields(document);
  ASSERT_NE(code, simdjson::SUCCESS);
  const Error error = errors.invalid_json(code, &document);
  EXPECT_EQ(error.kind, ErrorKind::kNotJson);
  EXPECT_EQ(error.file, "doc.json");
  EXPECT_EQ(error.message.rfind("not a valid test document: ", 0), 0U) << error.message;
  EXPECT_EQ(errors.invalid_json(code, nullptr).byte_offset, std::nullopt);
}

TEST(DocumentErrors, ContentAfterTheRootObjectIsRefused) {
  const std::string file = "doc.json";
  for (const auto& [text, trailing] : {std::pair{std::string(R"({"a": 1} )"), false},
                                       std::pair{std::string(R"({"a": 1} 7)"), true}}) {
    const simdjson::padded_string json(text);
    const DocumentErrors errors(json, file, "test document");
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document document;
    ASSERT_EQ(parser.iterate(json).get(document), simdjson::SUCCESS);
    ASSERT_EQ(read_root_fields(document), simdjson::SUCCESS);
    const Status status = errors.expect_end(document);
    EXPECT_EQ(!status, trailing) << text;
    if (!status) {
      EXPECT_EQ(status.error().byte_offset, 9U);
      EXPECT_EQ(status.error().message, "not a valid test document: content after the object");
    }
  }
}

}  // namespace
}  // namespace stepscope::io
