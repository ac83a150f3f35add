extension PostgresClient {
    /// Runs a bounded command (a `DELETE … WHERE ctid IN (SELECT ctid … LIMIT n)`) again and again until
    /// it affects fewer than `batchSize` rows or `maxBatches` ran, so no statement holds many row locks.
    /// `sql`'s last parameter is the batch size: pass the others in `parameters`.
    /// - Returns: the rows affected in all.
    /// - Throws: `PostgresError`.
    public func executeInBatches(_ sql: String, _ parameters: [PostgresValue?], batchSize: Int, maxBatches: Int) async throws -> Int {
        var total = 0
        for _ in 0..<max(1, maxBatches) {
            let count = try await execute(sql, parameters + [batchSize])
            total += count
            if count < batchSize { break }
        }
        return total
    }
}
