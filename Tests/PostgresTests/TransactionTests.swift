import Postgres
import Testing

extension PostgresServerTests {
    @Suite("Transactions")
    struct TransactionTests {
        struct Boom: Error {}

        @Test("a transaction whose body throws is rolled back and leaves nothing")
        func rollback() async throws {
            let client = try await TestDatabase.client(maxConnections: 1)
            let table = TestDatabase.uniqueName("tx_rollback")
            try await client.execute("CREATE TABLE \(table) (id int PRIMARY KEY, note text)")
            await #expect(throws: Boom.self) {
                try await client.withTransaction { tx in
                    for id in 1...3 { try await tx.execute("INSERT INTO \(table) VALUES ($1, $2)", [id, "row \(id)"]) }
                    let inside = try await tx.query("SELECT count(*) AS n FROM \(table)")[0].decode("n", as: Int.self)
                    #expect(inside == 3)
                    #expect(tx.isInTransaction)
                    throw Boom()
                }
            }
            let after = try await client.query("SELECT count(*) AS n FROM \(table)")[0].decode("n", as: Int.self)
            #expect(after == 0)
            #expect(client.statistics.open == 1, "the connection was rolled back and reused, not discarded")
            try await client.execute("DROP TABLE \(table)")
            await client.shutdown()
        }

        @Test("a server error inside a transaction rolls it back and surfaces the SQLSTATE")
        func serverError() async throws {
            let client = try await TestDatabase.client()
            let table = TestDatabase.uniqueName("tx_error")
            try await client.execute("CREATE TABLE \(table) (id int PRIMARY KEY)")
            do {
                try await client.withTransaction { tx in
                    try await tx.execute("INSERT INTO \(table) VALUES ($1)", [1])
                    try await tx.execute("INSERT INTO \(table) VALUES ($1)", [1])
                }
                Issue.record("the duplicate insert should fail")
            } catch let error as PostgresError {
                #expect(error.sqlState == PostgresSQLState.uniqueViolation)
                guard case .queryFailed(let server) = error else { throw error }
                #expect(server.constraint == "\(table)_pkey")
                #expect(server.detail?.contains("(id)=(1)") == true)
                #expect(!error.description.contains("(id)=(1)"), "DETAIL quotes row values; only debugDescription shows it")
            }
            let count = try await client.query("SELECT count(*) AS n FROM \(table)")[0].decode("n", as: Int.self)
            #expect(count == 0)
            try await client.execute("DROP TABLE \(table)")
            await client.shutdown()
        }

        @Test("a committed transaction keeps its rows and reports affected counts")
        func commit() async throws {
            let client = try await TestDatabase.client()
            let table = TestDatabase.uniqueName("tx_commit")
            try await client.execute("CREATE TABLE \(table) (id int PRIMARY KEY)")
            let inserted = try await client.withTransaction { tx in
                try await tx.execute("INSERT INTO \(table) SELECT g FROM generate_series(1, $1::int) g", [Int32(5)])
            }
            #expect(inserted == 5)
            let deleted = try await client.query("DELETE FROM \(table) WHERE id > $1", [3])
            #expect(deleted.affectedRows == 2)
            #expect(deleted.commandTag == "DELETE 2")
            try await client.execute("DROP TABLE \(table)")
            await client.shutdown()
        }
    }

    @Suite("SQL injection")
    struct InjectionTests {
        static let attacks = [
            "'; DROP TABLE users; --", "Robert'); DROP TABLE students;--", "' OR '1'='1", "1; SELECT pg_sleep(10)",
            "\\'; DELETE FROM x; --", "$1) OR (1=1", "'||(SELECT current_user)||'", "E'\\x27'", "/* */ UNION SELECT 1",
            "$$; DROP SCHEMA public CASCADE; $$",
        ]

        @Test("injection strings are stored verbatim as parameters and run nothing")
        func storedVerbatim() async throws {
            let client = try await TestDatabase.client()
            let table = TestDatabase.uniqueName("inj")
            try await client.execute("CREATE TABLE \(table) (id int PRIMARY KEY, name text NOT NULL)")
            for (index, attack) in Self.attacks.enumerated() {
                try await client.execute("INSERT INTO \(table) (id, name) VALUES ($1, $2)", [index, attack], prepared: true)
            }
            for (index, attack) in Self.attacks.enumerated() {
                let rows = try await client.query("SELECT id FROM \(table) WHERE name = $1", [attack])
                #expect(try rows.map { try $0.decode("id", as: Int.self) } == [index], "\(attack)")
            }
            let count = try await client.query("SELECT count(*) AS n FROM \(table)")[0].decode("n", as: Int.self)
            #expect(count == Self.attacks.count)
            try await client.execute("DROP TABLE \(table)")
            await client.shutdown()
        }

        @Test("a text parameter with a NUL byte is refused instead of being cut short")
        func nulByte() async throws {
            let client = try await TestDatabase.client()
            do {
                _ = try await client.query("SELECT $1::text", ["before\u{0}'; DROP TABLE x; --"])
                Issue.record("a NUL byte in text should be refused")
            } catch PostgresError.invalidParameter(let index, _) {
                #expect(index == 0)
            }
            await client.shutdown()
        }
    }
}
