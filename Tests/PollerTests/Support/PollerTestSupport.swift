import SharedTestSupport
import Contracts
import CricsheetReplay
import FakeFeed
import Foundation
import Kafka
import Postgres
import Runtime
import Schema
import Synchronization
@testable import Poller

/// A precondition of the test environment failed; says how to fix it.
struct EnvironmentFailure: Error, CustomStringConvertible {
    let description: String
}

/// Real PostgreSQL (one fresh schema per test, all migrations applied), real Kafka, a fake SportMonks.
enum PollerTestSupport {
    static let environment = ProcessInfo.processInfo.environment
    static let brokers = environment["KAFKA_BROKERS"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:19092"
    static let databaseURL = environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? PostgresConfiguration.localDefaultURL
    static let logger = Logger(label: "poller-tests", minimumLevel: .warning)

    /// This test process's snapshot and push-job topics (created with the first schema): the shared
    /// `sportmonks.fixtures` and `push.jobs` stay free of test records, which a later run's fresh
    /// detector or apns-sender group could otherwise read, and a reader scans only this process's.
    static let fixturesTopic = uniqueName("poller-tests.fixtures")
    static let jobsTopic = uniqueName("poller-tests.push-jobs")

    /// The publisher of the poller tests (to `fixturesTopic`).
    static func publisher(_ producer: KafkaProducer) -> KafkaSnapshotPublisher {
        KafkaSnapshotPublisher(producer: producer, topic: fixturesTopic)
    }

    /// A fixture-id offset no other test uses (fixture id = Cricsheet id + offset).
    static func uniqueOffset() -> Int { Int.random(in: 1_000...900_000) * 10_000_000 }

    static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
    }

    /// A pool whose search_path is a new schema holding every Sightscreen table.
    static func database() async throws -> (client: PostgresClient, schema: String) {
        let schema = uniqueName("poller")
        let admin = PostgresClient(configuration: try PostgresConfiguration(url: databaseURL), logger: logger)
        do {
            try await admin.execute("CREATE SCHEMA \(schema)")
        } catch {
            throw EnvironmentFailure(description: "PostgreSQL not reachable at \(databaseURL): start it with scripts/stack servers (\(error))")
        }
        await admin.shutdown()
        try await TopicsGate.shared.createOnce()
        var configuration = try PostgresConfiguration(url: databaseURL)
        configuration.searchPath = [schema]
        configuration.maxConnections = 6
        configuration.applicationName = "poller-tests"
        let client = PostgresClient(configuration: configuration, logger: logger)
        _ = try await PostgresMigrator(client, logger: logger).apply(SightscreenMigrations.all)
        return (client, schema)
    }

    static func dropSchema(_ schema: String, _ client: PostgresClient) async {
        _ = try? await client.execute("DROP SCHEMA \(schema) CASCADE")
        await client.shutdown()
    }

    static func producer() throws -> KafkaProducer {
        try KafkaLibrary.requireMinimumVersion()
        var configuration = KafkaProducerConfiguration(bootstrapServers: brokers, clientId: uniqueName("poller-test"))
        configuration.messageTimeout = .seconds(15)
        return try KafkaProducer(configuration: configuration, logger: logger)
    }

    /// Messages on `topic` whose key starts with `keyPrefix`, read with a fresh consumer group from the
    /// earliest offset: waits (≤ 60 s) for `expected`, then keeps reading `settle` longer to catch extras.
    static func messages(topic: String, keyPrefix: String, expected: Int, settle: Duration = .seconds(2)) async throws -> [KafkaMessage] {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: brokers, clientId: uniqueName("poller-test"),
                                                       groupId: uniqueName("poller-test"), topics: [topic])
        configuration.sessionTimeout = .milliseconds(6000)
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.autoOffsetReset = .earliest
        let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        var found: [KafkaMessage] = []
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        var settleUntil: ContinuousClock.Instant?
        while clock.now < deadline {
            if let settleUntil, clock.now >= settleUntil { break }
            if let message = try await consumer.poll(timeout: .milliseconds(200)), message.keyString?.hasPrefix(keyPrefix) == true {
                found.append(message)
            }
            if found.count >= expected, settleUntil == nil { settleUntil = clock.now + settle }
        }
        try? await consumer.close()
        if found.count < expected && expected > 0 {
            throw EnvironmentFailure(description: "only \(found.count) of \(expected) messages keyed \(keyPrefix)… on \(topic) within 60 s "
                + "(is Kafka up? start it with scripts/stack servers)")
        }
        return found
    }

    static func snapshots(matchId: String, expected: Int) async throws -> [FixtureSnapshot] {
        try await messages(topic: fixturesTopic, keyPrefix: matchId, expected: expected)
            .filter { $0.keyString == matchId }
            .map { try MessageCodec.decode(FixtureSnapshot.self, from: $0.value) }
    }

    static func jobs(matchId: String, expected: Int) async throws -> [(key: String, job: PushJob)] {
        try await messages(topic: jobsTopic, keyPrefix: matchId + ":", expected: expected)
            .map { ($0.keyString ?? "", try MessageCodec.decode(PushJob.self, from: $0.value)) }
            .filter { $0.1.matchId == matchId }
    }
}

/// A fake SportMonks on a free port with a manual clock.
struct FakeSportMonks {
    let server: FakeSportMonksServer
    let clock: ManualWallClock
    var feed: FakeFeed { server.feed }

    init(ids: [Int], configuration: FakeFeedConfiguration, clock: ManualWallClock = ManualWallClock(Date())) throws {
        self.clock = clock
        server = FakeSportMonksServer(
            feed: FakeFeed(matches: try ids.map(DataDirectory.match), configuration: configuration, clock: clock),
            port: 0, logger: PollerTestSupport.logger)
        try server.start()
    }

    var client: SportMonksClient {
        SportMonksClient(baseURL: server.baseURL, apiToken: feed.configuration.apiToken, timeout: .seconds(10))
    }

    /// Stops the server without waiting (for `defer`s).
    func stop() { server.stopInBackground() }
}

/// Records every wait instead of sleeping; after `limit` waits it throws `CancellationError` (ends the loop).
final class RecordingSleeper: Sleeper {
    private let state: LockedValue<[Duration]> = LockedValue([])
    let limit: Int

    init(limit: Int) { self.limit = limit }

    var waits: [Duration] { state.withLock { $0 } }

    func sleep(for duration: Duration) async throws {
        let count = state.withLock { $0.append(duration); return $0.count }
        await Task.yield()
        if count >= limit { throw CancellationError() }
    }
}

/// Creates `PollerTestSupport`'s topics once per process; concurrent callers wait for that one run.
actor TopicsGate {
    static let shared = TopicsGate()
    private var run: Task<Void, any Error>?

    func createOnce() async throws {
        if let run, (try? await run.value) != nil { return }
        let attempt = Task {
            do {
                let admin = try KafkaAdmin(
                    configuration: KafkaAdminConfiguration(bootstrapServers: PollerTestSupport.brokers, clientId: "poller-tests-setup"),
                    logger: PollerTestSupport.logger)
                try await admin.createTopics([
                    KafkaTopicSpec(name: PollerTestSupport.fixturesTopic, partitions: 3),
                    KafkaTopicSpec(name: PollerTestSupport.jobsTopic, partitions: 3),
                ], timeout: .seconds(10))
            } catch {
                throw EnvironmentFailure(description: "Kafka not usable at \(PollerTestSupport.brokers): start it with scripts/stack up (\(error))")
            }
        }
        run = attempt
        try await attempt.value
    }
}
