import Contracts
import Foundation
import Kafka
import Postgres
import Runtime
import ServerTestSupport

/// Real servers for the Live Activity management tests (`TestServers`): a fresh schema per test, and this test
/// process's own push-jobs topic (created once), so a reader scans only this process's jobs.
enum ManagementTestSupport {
    static let logger = TestServers.quietLogger("la-management-tests")
    private static let topicCreated = TopicGate()
    private static let createdTopic = LockedValue<String?>(nil)

    /// This process's jobs topic; made by the first `database()`, which every test calls first.
    static var jobsTopic: String {
        guard let name = createdTopic.withLock({ $0 }) else { preconditionFailure("call ManagementTestSupport.database() first") }
        return name
    }

    /// Creates the jobs topic once per process.
    private actor TopicGate {
        var created = false
        func createOnce() async throws {
            guard !created else { return }
            let name = try await TestServers.topic("la-management-tests.push-jobs", partitions: 4, logger: ManagementTestSupport.logger)
            ManagementTestSupport.createdTopic.withLock { $0 = name }
            created = true
        }
    }

    /// A fixture-id offset no other test uses.
    static func uniqueOffset() -> Int { Int.random(in: 1_000...900_000) * 10_000_000 }

    /// A pool on a new schema with every migration applied (and the jobs topic made).
    static func database() async throws -> (client: PostgresClient, schema: String) {
        try await topicCreated.createOnce()
        return (try await TestServers.database(schemaPrefix: "lamgmt", maxConnections: 6, logger: logger), "")
    }

    /// Closes the pool (the schema is left; every test has its own).
    static func dropSchema(_ schema: String, _ client: PostgresClient) async {
        await client.shutdown()
    }

    static func producer() throws -> KafkaProducer {
        try TestServers.producer(clientPrefix: "la-management-test", logger: logger)
    }

    /// The jobs of `matchId` on `jobsTopic` (keyed "matchId:…"): waits (≤ 60 s) for `expected`, then 1.5 s more for extras.
    static func jobs(matchId: String, expected: Int) async throws -> [(key: String, job: PushJob)] {
        try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) { $0.count >= expected }.map { ($0.key, $0.job) }
    }
}
