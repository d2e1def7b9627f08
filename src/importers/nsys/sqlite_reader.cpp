#include "importers/nsys/sqlite_reader.h"

#include <utility>

namespace stepscope::nsys {

namespace {

bool is_unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~' || c == '/';
}

// SQLite quotes identifiers with double quotes, doubling any inside.
std::string quoted(const std::string& identifier) {
  std::string out = "\"";
  for (const char c : identifier) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + '"';
}

}  // namespace

std::string immutable_uri(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const char c : path) {
    if (is_unreserved(c)) {
      uri += c;
      continue;
    }
    const auto byte = static_cast<unsigned char>(c);
    uri += '%';
    uri += kHex[byte >> 4U];
    uri += kHex[byte & 0xFU];
  }
  return uri + "?mode=ro&immutable=1";
}

Error sqlite_error(sqlite3* db, int code, std::string_view doing) {
  const int primary = code & 0xff;
  std::string what = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
    return make_error(ErrorKind::kNotTrace, "the database is corrupt or truncated (SQLite, " +
                                                std::string(doing) + ": " + what + ")");
  }
  if (primary == SQLITE_NOMEM) {
    return make_error(ErrorKind::kLimitExceeded, "out of memory " + std::string(doing));
  }
  const ErrorKind kind = primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR ||
                                 primary == SQLITE_PERM || primary == SQLITE_AUTH
                             ? ErrorKind::kIo
                             : ErrorKind::kNotTrace;
  return make_error(kind, "SQLite, " + std::string(doing) + ": " + what);
}

Result<bool> Statement::step() {
  const int code = sqlite3_step(statement_.get());
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  return sqlite_error(db_, code, "reading a row");
}

void Statement::bind(int parameter, std::int64_t value) {
  sqlite3_bind_int64(statement_.get(), parameter, value);
}

void Statement::reset() { sqlite3_reset(statement_.get()); }

bool Statement::is_null(int column) const {
  return sqlite3_column_type(statement_.get(), column) == SQLITE_NULL;
}

std::int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(statement_.get(), column);
}

double Statement::real(int column) const { return sqlite3_column_double(statement_.get(), column); }

std::string_view Statement::text(int column) const {
  const unsigned char* bytes = sqlite3_column_text(statement_.get(), column);
  if (bytes == nullptr) return {};
  return {reinterpret_cast<const char*>(bytes),
          static_cast<std::size_t>(sqlite3_column_bytes(statement_.get(), column))};
}

Result<Database> Database::open(const std::string& path) {
  sqlite3* raw = nullptr;
  // One connection per thread that reads it: SQLite's own mutexes (about 4 % of reading a large
  // export) guard nothing here.
  const int code =
      sqlite3_open_v2(immutable_uri(path).c_str(), &raw,
                      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  Database database;
  database.db_.reset(raw);
  if (code != SQLITE_OK) return sqlite_error(raw, code, "opening the file");
  // Pages read in place from a read-only mapping rather than copied into SQLite's page cache
  // (up to the library's own limit, about 2 GB in Debian's build); a file past it is read as
  // usual beyond that.
  sqlite3_exec(raw, "PRAGMA mmap_size = 2147418112", nullptr, nullptr, nullptr);
  return database;
}

Result<Statement> Database::prepare(const std::string& sql) {
  sqlite3_stmt* raw = nullptr;
  const int code =
      sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()) + 1, &raw, nullptr);
  if (code != SQLITE_OK) {
    sqlite3_finalize(raw);
    return sqlite_error(db_.get(), code, "preparing a query");
  }
  return Statement(raw, db_.get());
}

Result<std::set<std::string>> Database::tables() {
  STEPSCOPE_ASSIGN_OR_RETURN(Statement query,
                             prepare("SELECT name FROM sqlite_master WHERE type = 'table'"));
  std::set<std::string> names;
  while (true) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool row, query.step());
    if (!row) break;
    names.emplace(query.text(0));
  }
  return names;
}

Result<std::set<std::string>> Database::columns(const std::string& table) {
  STEPSCOPE_ASSIGN_OR_RETURN(Statement query, prepare("PRAGMA table_info(" + quoted(table) + ")"));
  std::set<std::string> names;
  while (true) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool row, query.step());
    if (!row) break;
    names.emplace(query.text(1));
  }
  return names;
}

Result<std::int64_t> Database::last_rowid(const std::string& table) {
  STEPSCOPE_ASSIGN_OR_RETURN(Statement query, prepare("SELECT max(rowid) FROM " + quoted(table)));
  STEPSCOPE_ASSIGN_OR_RETURN(const bool row, query.step());
  return row && !query.is_null(0) ? query.integer(0) : 0;
}

}  // namespace stepscope::nsys
