import CLibPQ

/// Owns one `PGresult` and frees it with `PQclear` in `deinit`.
///
/// `@unchecked Sendable`: the libpq manual states that a PGresult is read-only after creation
/// and may be passed around freely between threads; this class only reads it and never lets
/// the pointer escape.
final class PQResult: @unchecked Sendable {
    private let handle: OpaquePointer

    init(taking handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    var status: ExecStatusType { PQresultStatus(handle) }

    var isSuccess: Bool {
        let status = status
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY
            || status == PGRES_SINGLE_TUPLE
    }

    var rowCount: Int { Int(PQntuples(handle)) }

    var columnCount: Int { Int(PQnfields(handle)) }

    func columnName(_ column: Int) -> String {
        PQfname(handle, Int32(column)).map { String(cString: $0) } ?? ""
    }

    func columnType(_ column: Int) -> PostgresDataType {
        PostgresDataType(rawValue: PQftype(handle, Int32(column)))
    }

    /// A copy of the cell's text bytes, or nil for NULL.
    func bytes(row: Int, column: Int) -> [UInt8]? {
        if PQgetisnull(handle, Int32(row), Int32(column)) != 0 { return nil }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        guard let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        return value.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The command tag, e.g. `INSERT 0 3` or `SELECT 10`.
    var commandTag: String {
        PQcmdStatus(handle).map { String(cString: $0) } ?? ""
    }

    /// Rows affected by INSERT/UPDATE/DELETE/MERGE/SELECT/MOVE/FETCH/COPY, nil for other commands.
    var affectedRows: Int? {
        guard let text = PQcmdTuples(handle) else { return nil }
        return Int(String(cString: text))
    }

    /// The server's error fields, or a best-effort error when the server sent none.
    var serverError: PostgresServerError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(handle, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        let fallback = PQresultErrorMessage(handle).map { String(cString: $0) } ?? "unknown error"
        return PostgresServerError(
            sqlState: field("C") ?? "XX000", severity: field("V") ?? field("S") ?? "ERROR",
            message: field("M") ?? fallback.trimmingCharacters(), detail: field("D"), hint: field("H"),
            schema: field("s"), table: field("t"), column: field("c"), constraint: field("n"))
    }

    /// True when the error came from the server (it has a SQLSTATE) rather than from libpq.
    var hasServerError: Bool {
        PQresultErrorField(handle, Int32(Character("C").asciiValue!)) != nil
    }
}

extension String {
    /// Without trailing newlines and spaces (libpq messages end in "\n").
    func trimmingCharacters() -> String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == " " { text.removeLast() }
        return String(text)
    }
}
