extension PostgresConnection {
    /// Streams the rows of a query through a server-side cursor, `batchSize` rows at a time, so
    /// that memory stays flat however many rows there are.
    ///
    /// Runs `DECLARE <cursor> NO SCROLL CURSOR FOR <sql>` (with the parameters bound) and
    /// `FETCH FORWARD batchSize` until the cursor is exhausted. Outside a transaction it opens one
    /// and commits at the end (rolled back on error); inside one, it only closes its cursor.
    ///
    /// - Parameters:
    ///   - sql: A `SELECT` or `VALUES` statement with `$n` placeholders.
    ///   - parameters: One value per placeholder.
    ///   - batchSize: Rows per `FETCH` (1…1,000,000).
    ///   - body: Called once per row, in order. A thrown error stops the stream and is rethrown.
    /// - Returns: the number of rows streamed.
    /// - Throws: `PostgresError` or the body's error.
    @discardableResult
    public nonisolated(nonsending) func stream(
        _ sql: String, _ parameters: [PostgresValue?] = [], batchSize: Int = 1000,
        _ body: (PostgresRow) async throws -> Void
    ) async throws -> Int {
        let batchSize = min(max(batchSize, 1), 1_000_000)
        let ownsTransaction = !isInTransaction
        let cursor = nextCursorName()
        if ownsTransaction { try await execute("BEGIN") }
        do {
            try await execute("DECLARE \(cursor) NO SCROLL CURSOR FOR \(sql)", parameters)
            var total = 0
            while true {
                let batch = try await query("FETCH FORWARD \(batchSize) FROM \(cursor)")
                for row in batch { try await body(row) }
                total += batch.count
                if batch.count < batchSize { break }
            }
            try await execute("CLOSE \(cursor)")
            if ownsTransaction { try await execute("COMMIT") }
            return total
        } catch {
            if ownsTransaction {
                await rollbackQuietly()
            } else if !isBroken {
                _ = try? await execute("CLOSE \(cursor)")
            }
            throw error
        }
    }
}
