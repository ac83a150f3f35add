@testable import Postgres
import Foundation
import Testing

/// Tests that need no server.
@Suite("Postgres without a server")
struct PostgresUnitTests {
    @Test("a DATABASE_URL parses into libpq keyword/value pairs")
    func urlParsing() throws {
        let configuration = try PostgresConfiguration(
            url: "postgresql://app:s%40cret@db.example:6543/sight?sslmode=require&application_name=poller&pool_size=7")
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6543)
        #expect(configuration.user == "app")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "sight")
        #expect(configuration.maxConnections == 7)
        #expect(configuration.applicationName == "poller")
        let parameters = Dictionary(uniqueKeysWithValues: configuration.connectionParameters.map { ($0.keyword, $0.value) })
        #expect(parameters["sslmode"] == "require")
        #expect(parameters["dbname"] == "sight")
        #expect(parameters["password"] == "s@cret")
        #expect(parameters["options"]?.contains("-c TimeZone=UTC") == true)

        let local = try PostgresConfiguration(url: PostgresConfiguration.localDefaultURL)
        #expect(local.host == "127.0.0.1" && local.port == 55432 && local.user == "sightscreen" && local.password == nil)
        #expect(throws: PostgresError.self) { try PostgresConfiguration(url: "mysql://x@y/z") }
        #expect(throws: PostgresError.self) { try PostgresConfiguration(url: "postgresql://host/db") }
        #expect(PostgresConfiguration.escapeOption("a b\\c") == "a\\ b\\\\c")
    }

    @Test("a refused connection fails with connectionFailed naming host and port")
    func refusedConnection() async throws {
        var configuration = PostgresConfiguration(host: "127.0.0.1", port: 1, user: "nobody", database: "none")
        configuration.connectTimeout = .seconds(2)
        do {
            _ = try await PostgresConnection.connect(configuration)
            Issue.record("port 1 should refuse")
        } catch PostgresError.connectionFailed(let host, let port, let message) {
            #expect(host == "127.0.0.1" && port == 1)
            #expect(!message.isEmpty)
        }
        let client = PostgresClient(configuration: configuration)
        await #expect(throws: PostgresError.self) { try await client.query("SELECT 1") }
        #expect(client.statistics.open == 0, "the failed slot was given back")
    }

    @Test("timestamp text parses to microseconds since 1970")
    func timestamps() {
        func parse(_ text: String) -> Int64? { PostgresTimestampText.microsecondsSince1970(Array(text.utf8)) }
        #expect(parse("1970-01-01 00:00:00+00") == 0)
        #expect(parse("2023-11-14 22:13:20.123456+00") == 1_700_000_000_123_456)
        #expect(parse("1969-12-31 23:59:59.5+00") == -500_000)
        #expect(parse("2024-02-29") == 1_709_164_800_000_000)
        #expect(parse("2024-02-29 05:30:00+05:30") == 1_709_164_800_000_000)
        #expect(parse("infinity") == .max)
        #expect(parse("0044-03-15 00:00:00+00 BC") == nil)
        #expect(parse("garbage") == nil)
        #expect(PostgresByteaText.decode(Array("\\x00ff10".utf8)) == [0, 255, 16])
        #expect(PostgresByteaText.decode(Array("00ff".utf8)) == nil)
    }

    @Test("only a statement that never reached the server is retried, and only once")
    func retryRule() {
        #expect(PostgresClient.shouldRetry(.connectionLost(message: "dead", querySent: false), attempt: 1))
        #expect(!PostgresClient.shouldRetry(.connectionLost(message: "dead", querySent: false), attempt: 2))
        #expect(!PostgresClient.shouldRetry(.connectionLost(message: "lost", querySent: true), attempt: 1))
        #expect(!PostgresClient.shouldRetry(.connectionFailed(host: "h", port: 1, message: "refused"), attempt: 1))
        let server = PostgresServerError(sqlState: "57P01", severity: "FATAL", message: "terminating")
        #expect(!PostgresClient.shouldRetry(.queryFailed(server), attempt: 1))
    }

    @Test("pool bookkeeping: slots, waiters in FIFO order, discards hand the slot on")
    func poolStateMachine() {
        var pool = PoolStateMachine<String, String>(maxConnections: 2)
        guard case .grant(.openSlot) = pool.acquire(id: 1, waiter: "a") else { Issue.record("slot 1"); return }
        guard case .grant(.openSlot) = pool.acquire(id: 2, waiter: "b") else { Issue.record("slot 2"); return }
        guard case .wait = pool.acquire(id: 3, waiter: "c") else { Issue.record("c waits"); return }
        guard case .wait = pool.acquire(id: 4, waiter: "d") else { Issue.record("d waits"); return }
        #expect(pool.open == 2)
        guard case .resume("c", .connection("conn1")) = pool.release("conn1") else { Issue.record("c gets conn1"); return }
        guard case .resume("d", .openSlot) = pool.discard() else { Issue.record("d gets a slot"); return }
        #expect(pool.open == 2)
        #expect(pool.removeWaiter(id: 4) == nil)
        guard case .none = pool.release("conn2") else { Issue.record("conn2 goes idle"); return }
        #expect(pool.idle == ["conn2"])
        guard case .none = pool.discard() else { Issue.record("slot freed"); return }
        #expect(pool.open == 1)
        let (idle, waiters) = pool.shutdown()
        #expect(idle == ["conn2"] && waiters.isEmpty && pool.open == 0)
        guard case .closed = pool.acquire(id: 5, waiter: "e") else { Issue.record("closed"); return }
    }
}
