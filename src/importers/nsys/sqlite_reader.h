// A read-only view of one SQLite database, as the Nsight Systems reader needs it: tables and
// their columns looked up by name, and statements stepped row by row (nothing is copied whole).
// The file is opened immutable (`?mode=ro&immutable=1`): SQLite writes no journal, WAL or lock
// file beside it and takes no lock, so that reading an export never changes its folder.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/error.h"

namespace stepscope::nsys {

// A prepared statement; columns are read by the index of their name in the SELECT.
class Statement {
 public:
  Statement() = default;
  Statement(sqlite3_stmt* statement, sqlite3* db) : statement_(statement), db_(db) {}

  // One more row: true while there is one; an error (the database is corrupt, say) otherwise.
  Result<bool> step();
  void bind(int parameter, std::int64_t value);
  void reset();

  [[nodiscard]] bool is_null(int column) const;
  [[nodiscard]] std::int64_t integer(int column) const;
  [[nodiscard]] double real(int column) const;
  // Valid until the next step().
  [[nodiscard]] std::string_view text(int column) const;

 private:
  struct Finalize {
    void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
  };
  std::unique_ptr<sqlite3_stmt, Finalize> statement_;
  sqlite3* db_ = nullptr;
};

class Database {
 public:
  // Opens `path` read-only and immutable; an error names what SQLite says.
  static Result<Database> open(const std::string& path);

  // The names of the database's tables (an error when the file is not a database).
  Result<std::set<std::string>> tables();
  // The columns of `table`, as `PRAGMA table_info` lists them.
  Result<std::set<std::string>> columns(const std::string& table);
  Result<Statement> prepare(const std::string& sql);
  // The largest rowid of `table`: its row count when rows were only ever appended.
  Result<std::int64_t> last_rowid(const std::string& table);

 private:
  struct Close {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
  };
  std::unique_ptr<sqlite3, Close> db_;
};

// The error for a failed SQLite call: a corrupt or truncated file says so in words.
Error sqlite_error(sqlite3* db, int code, std::string_view doing);

// `path` as a `file:` URI with SQLite's read-only, immutable parameters; every byte outside
// the unreserved set percent-escaped.
std::string immutable_uri(std::string_view path);

}  // namespace stepscope::nsys
