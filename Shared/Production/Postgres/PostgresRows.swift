/// The complete result of one statement: its rows, column names and command tag.
///
/// Rows stay in libpq's result buffer (freed when the last `PostgresRows`/`PostgresRow` referring to
/// it goes away); cells are copied out only when decoded.
public struct PostgresRows: Sendable, RandomAccessCollection {
    let result: PQResult
    let columns: PostgresColumns

    init(result: PQResult) {
        self.result = result
        self.columns = PostgresColumns(result: result)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { result.rowCount }

    public subscript(position: Int) -> PostgresRow {
        precondition(indices.contains(position), "row \(position) out of range 0..<\(endIndex)")
        return PostgresRow(result: result, columns: columns, index: position)
    }

    /// Column names in order.
    public var columnNames: [String] { columns.names }

    /// The command tag, e.g. `INSERT 0 3`, `UPDATE 2`, `SELECT 10`, `CREATE TABLE`.
    public var commandTag: String { result.commandTag }

    /// Rows inserted/updated/deleted/selected/fetched (0 for commands that report none).
    public var affectedRows: Int { result.affectedRows ?? 0 }
}

/// Column names and types of a result, shared by all of its rows.
final class PostgresColumns: Sendable {
    let names: [String]
    let types: [PostgresDataType]
    let indexByName: [String: Int]

    init(result: PQResult) {
        let count = result.columnCount
        names = (0..<count).map { result.columnName($0) }
        types = (0..<count).map { result.columnType($0) }
        var indexByName: [String: Int] = [:]
        // The first column of a name wins, as in SQL's own resolution order.
        for (index, name) in names.enumerated() where indexByName[name] == nil { indexByName[name] = index }
        self.indexByName = indexByName
    }
}

/// One row of a result. Decode cells by column name or position:
///
/// ```swift
/// let name = try row.decode("name", as: String.self)
/// let expires = try row.decode("expires_at", as: Date?.self)   // nil for NULL
/// ```
public struct PostgresRow: Sendable {
    let result: PQResult
    let columns: PostgresColumns
    let index: Int

    /// Column names in order.
    public var columnNames: [String] { columns.names }

    /// The raw cell at `column` (zero-based).
    /// - Throws: `noSuchColumn` when out of range.
    public func cell(at column: Int) throws -> PostgresCell {
        guard column >= 0, column < columns.names.count else { throw PostgresError.noSuchColumn("#\(column)") }
        return PostgresCell(
            columnName: columns.names[column], columnIndex: column, type: columns.types[column],
            bytes: result.bytes(row: index, column: column))
    }

    /// The raw cell of the column called `name` (exact, case-sensitive match).
    /// - Throws: `noSuchColumn`.
    public func cell(named name: String) throws -> PostgresCell {
        guard let column = columns.indexByName[name] else { throw PostgresError.noSuchColumn(name) }
        return try cell(at: column)
    }

    /// Decodes the column called `name`. Use an optional type (`String?.self`) for nullable columns.
    /// - Throws: `noSuchColumn`, or `decode` naming the column, the type and the actual value.
    public func decode<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try T(postgresCell: cell(named: name))
    }

    /// Decodes the column at zero-based position `column`.
    /// - Throws: `noSuchColumn` or `decode`.
    public func decode<T: PostgresDecodable>(_ column: Int, as type: T.Type = T.self) throws -> T {
        try T(postgresCell: cell(at: column))
    }

    /// True when the column called `name` is SQL NULL.
    /// - Throws: `noSuchColumn`.
    public func isNull(_ name: String) throws -> Bool {
        try cell(named: name).isNull
    }
}
