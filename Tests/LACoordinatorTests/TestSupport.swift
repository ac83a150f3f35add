import Contracts
import PushComposition
import FanOut
import Foundation
import Kafka
import Postgres
import Runtime
import Schema
import ServerTestSupport
import ServiceKit
@testable import LACoordinator
import SharedTestSupport
import LiveActivities
import Matches

typealias TestFailure = TestEnvironmentFailure

/// Real servers for the la-coordinator tests (`TestServers`): a fresh schema per test, unique topics and groups.
enum TestSupport {
    static let databaseURL = TestServers.databaseURL
    static let brokers = TestServers.brokers
    static let quiet = TestServers.quietLogger("la-coordinator-tests")

    static func unique(_ prefix: String) -> String { TestServers.unique(prefix) }

    /// Runs the coordinator's clients and loops as main lists them, in a `ServiceGroup` (no signals, no hard exit);
    /// cancelling the task stops them all (the pool is the test's to close).
    static func run(_ coordinator: Coordinator) -> Task<Void, any Error> {
        let group = ServiceGroup(
            services: [
                ResourceService("kafka-producer") { try? await coordinator.producer.shutdown() },
                ResourceService("kafka-consumer-events") { try? await coordinator.eventsConsumer.close() },
                ResourceService("kafka-consumer-token-invalid") { try? await coordinator.tokenInvalidConsumer.close() },
                ResourceService("kafka-consumer-outcomes") { try? await coordinator.outcomesConsumer.close() },
                coordinator.makeTokenInvalidLoop(),
                coordinator.makeDeliveryRecordLoop(),
                coordinator.makeEventsLoop(),
            ],
            signal: ShutdownSignal(signals: []), logger: quiet, grace: .seconds(10), hardStop: nil)
        return Task { _ = await group.run() }
    }

    /// A configuration on the test's own brokers and database whose delivery recorder reads `outcomesTopic` (a fresh
    /// one when nil) in a group of its own: tests never share `push.outcomes` or its group.
    static func configuration(outcomesTopic: String? = nil) async throws -> CoordinatorConfiguration {
        var configuration = CoordinatorConfiguration()
        configuration.infrastructure = .init(kafkaBrokers: brokers, databaseURL: databaseURL)
        if let outcomesTopic {
            configuration.outcomesTopic = outcomesTopic
        } else {
            configuration.outcomesTopic = try await topic("la-outcomes", partitions: 1)
        }
        configuration.recordGroup = unique("la-record-group")
        return configuration
    }

    /// A client on a new schema with every migration applied.
    static func database() async throws -> PostgresClient {
        try await TestServers.database(schemaPrefix: "lacoord", logger: quiet)
    }

    /// Checks the broker and creates a fresh topic.
    static func topic(_ prefix: String, partitions: Int32 = 4) async throws -> String {
        try await TestServers.topic(prefix, partitions: partitions, logger: quiet)
    }

    static func producer() throws -> KafkaProducer {
        try TestServers.producer(clientPrefix: "la-test-producer", messageTimeout: .seconds(30), logger: quiet)
    }

    static func consumer(topic: String, group: String) throws -> KafkaConsumer {
        try TestServers.consumer(topic: topic, group: group, clientPrefix: "la-test", logger: quiet)
    }

    /// A job read back from Kafka with its key.
    struct ReadJob {
        let key: String
        let job: PushJob
    }

    /// Reads `topic` from the start with a fresh group until `done(jobs)` holds (then 1.5 s more to catch
    /// extras) or 60 s pass; keeps only jobs of `matchId`.
    static func readJobs(topic: String, matchId: String, until done: ([ReadJob]) -> Bool) async throws -> [ReadJob] {
        let consumer = try consumer(topic: topic, group: unique("la-test-read"))
        defer { Task { try? await consumer.close() } }
        var jobs: [ReadJob] = []
        let deadline = ContinuousClock.now + .seconds(60)
        var settleUntil: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            if let settleUntil, ContinuousClock.now > settleUntil { break }
            guard let message = try await consumer.poll(timeout: .milliseconds(200)) else { continue }
            let job = try MessageCodec.decode(PushJob.self, from: message.value)
            guard job.matchId == matchId else { continue }
            jobs.append(ReadJob(key: message.keyString ?? "", job: job))
            if settleUntil == nil, done(jobs) { settleUntil = ContinuousClock.now + .milliseconds(1500) }
        }
        return jobs
    }

    /// `users × devicesPerUser` active rows (and device rows; every 10th user on sandbox) for `matchId`.
    static func insertActive(_ database: PostgresClient, matchId: String, users: Int, devicesPerUser: Int = 3,
                             userPrefix: String = "u") async throws {
        try await database.execute(
            """
            INSERT INTO devices (user_id, device_id, push_to_start_token, apns_env)
            SELECT $1 || u, 'd' || d, md5('pts' || $1 || u || 'd' || d), CASE WHEN u % 10 = 0 THEN 'sandbox' ELSE 'production' END
            FROM generate_series(0, $2 - 1) AS u, generate_series(0, $3 - 1) AS d
            ON CONFLICT DO NOTHING
            """, [userPrefix, users, devicesPerUser])
        try await database.execute(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status, update_token, apns_env)
            SELECT $4, $1 || u, 'd' || d, 'active', repeat(md5($4 || $1 || u || 'd' || d), 5),
                   CASE WHEN u % 10 = 0 THEN 'sandbox' ELSE 'production' END
            FROM generate_series(0, $2 - 1) AS u, generate_series(0, $3 - 1) AS d
            """, [userPrefix, users, devicesPerUser, matchId])
    }

    static func state(matchId: String, phase: MatchPhase = .live, score: String = "120/3") -> UnifiedDisplayState {
        UnifiedDisplayState(
            matchId: matchId, matchDisplayState: phase, title: "India vs Australia", subtitle: "1st T20I · Wankhede Stadium",
            statusText: "India need 40 runs", compactLeading: .init(teamAbbr: "IND", score: score),
            compactTrailing: .init(overs: "15.0", runRate: "8.00"), minimal: .init(text: score),
            expanded: .init(batting: .init(abbr: "IND", name: "India", score: score, overs: "15.0"),
                            bowling: .init(abbr: "AUS", name: "Australia", score: "159/6", overs: "20.0"),
                            batters: [.init(name: "Virat Kohli", score: "60 (40)", onStrike: true)],
                            bowler: .init(name: "Pat Cummins", figures: "1-20 (3.0)"), lastBalls: ["1", "4"],
                            target: "Target 160", equation: "Need 40 off 30", runRate: "RR 8.00", requiredRate: "RRR 8.00"),
            lockScreen: .init(headline: "IND \(score)", detail: "Kohli 60 (40)", footer: "Need 40 off 30"),
            resultLine: phase == .ended ? "India won by 5 wickets" : nil, updatedAt: 1_800_000_000)
    }

    static func event(matchId: String, seq: Int64, key: KeyEvent? = nil, phase: MatchPhase = .live) -> MatchBusEvent {
        MatchBusEvent(eventId: "\(matchId):\(seq)", matchId: matchId, seq: seq, emittedAt: 1_800_000_000_000 + seq * 1000,
                      displayState: state(matchId: matchId, phase: phase, score: "\(100 + seq)/3"), keyEvent: key, phase: phase)
    }

    static let wicket = KeyEvent(kind: .wicket, priority: 10, alert: Alert(title: "Wicket!", body: "Kohli c Smith b Cummins 60 (40)"))

    /// A processor that writes jobs to `jobsTopic`.
    static func processor(database: PostgresClient, producer: KafkaProducer, jobsTopic: String,
                          registry: MetricsRegistry = MetricsRegistry()) -> EventBatchProcessor {
        EventBatchProcessor(
            executor: FanOutExecutor(database: database, producer: producer, settings: FanOutSettings(topic: jobsTopic),
                                     clock: ManualWallClock()),
            activities: LiveActivityStore(database: database), matches: MatchStore(database: database), policy: PushPolicy(), logger: quiet,
            metrics: CoordinatorMetrics(registry: registry))
    }
}
