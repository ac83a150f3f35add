extension PostgresConnection {
    /// Runs `body` inside `BEGIN` … `COMMIT`; on any thrown error it sends `ROLLBACK` and rethrows
    /// the body's error. Statements inside are never retried.
    ///
    /// - Throws: the error of `BEGIN`, of `body` or of `COMMIT`.
    public nonisolated(nonsending) func withTransaction<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await execute("BEGIN")
        let value: T
        do {
            value = try await body(self)
        } catch {
            await rollbackQuietly()
            throw error
        }
        do {
            try await execute("COMMIT")
        } catch {
            await rollbackQuietly()
            throw error
        }
        return value
    }

    /// `ROLLBACK` if a transaction is open and the connection still works; a failure here leaves
    /// the connection marked in-transaction or broken, and the pool then discards it.
    func rollbackQuietly() async {
        guard !isBroken, isInTransaction else { return }
        _ = try? await execute("ROLLBACK")
    }
}
