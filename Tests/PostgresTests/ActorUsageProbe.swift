import Postgres

/// Compile-time check: an actor can use the closure-taking APIs with actor-isolated state.
actor ActorUsageProbe {
    var seen = 0
    let client: PostgresClient

    init(client: PostgresClient) { self.client = client }

    func run() async throws {
        try await client.withTransaction { tx in
            _ = try await tx.query("SELECT 1")
        }
        try await client.stream("SELECT 1") { _ in self.seen += 1 }
        let n = try await client.withConnection { connection in
            try await connection.query("SELECT 1 AS n")[0].decode("n", as: Int.self)
        }
        seen += n
    }
}
