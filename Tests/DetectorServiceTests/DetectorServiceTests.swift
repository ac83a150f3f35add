import FeedHistory
import SharedTestSupport
import Contracts
import CricsheetReplay
import Cricket
import Detection
import Foundation
import Kafka
import Postgres
import Runtime
import Synchronization
import Testing
@testable import Detector

/// Collects published events in memory (and can fail on demand).
final class RecordingPublisher: MatchEventPublisher {
    let events = LockedValue<[MatchBusEvent]>([])
    let failures = LockedValue(0)
    func publish(_ batch: [MatchBusEvent]) async throws {
        if failures.withLock({ count in defer { count = max(0, count - 1) }; return count > 0 }) {
            throw ServiceTestFailure(description: "injected produce failure")
        }
        events.withLock { $0 += batch }
    }
}

@Suite("Detector service wiring (PostgreSQL, Kafka)", .serialized)
struct DetectorServiceTests {
    static func snapshots(matchId: Int, count: Int) throws -> [[UInt8]] {
        let match = try DataDirectory.match(matchId)
        let builder = SportMonksFixtureBuilder(match: match)
        return try match.replayTimeline().prefix(count).enumerated().map { index, position in
            let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(builder.fixture(at: position)))
            return try MessageCodec.encode(FixtureSnapshot(matchId: "\(matchId)", polledAt: 1_800_000_000_000 + Int64(index) * 40_000,
                                                           fixture: json))
        }
    }

    static func handler(_ database: PostgresClient, _ publisher: any MatchEventPublisher) -> SnapshotHandler {
        SnapshotHandler(detector: MatchDetector(), store: DetectorStateStore(client: database), history: FeedBallStore(database: database), publisher: publisher,
                        logger: ServiceTestSupport.quiet, metrics: DetectorMetrics(registry: MetricsRegistry()))
    }

    @Test("state round-trips through active_matches, and the seeds' columns are filled")
    func storeRoundTrip() async throws {
        let database = try await ServiceTestSupport.database()
        let publisher = RecordingPublisher()
        let handler = Self.handler(database, publisher)
        for bytes in try Self.snapshots(matchId: 1322276, count: 40) { _ = try await handler.handle(bytes, key: "1322276") }
        let stored = try #require(try await DetectorStateStore(client: database).load(matchId: "1322276"))
        let events = publisher.events.withLock { $0 }
        #expect(stored.seq == events.last?.seq && stored.displayState == events.last?.displayState)
        let row = try #require(try await database.query(
            "SELECT seq, display_state, jsonb_array_length(last_balls) AS balls FROM active_matches WHERE match_id = '1322276'").first)
        #expect(try row.decode("seq", as: Int64.self) == stored.seq)
        #expect(try row.decode("balls", as: Int.self) == 30)
        let display = try row.decode("display_state", as: PostgresJSON.self).decode(UnifiedDisplayState.self)
        #expect(display == stored.displayState)
        // The api shortens retryAfterMs after key moments: the newest priority-10 event's time is recorded.
        let lastKey = events.filter { $0.keyEvent?.priority == 10 }.map(\.emittedAt).max()
        let recorded = try #require(try await database.query(
            "SELECT (extract(epoch FROM last_key_event_at) * 1000)::bigint AS ms FROM active_matches WHERE match_id = '1322276'").first)
        #expect(try recorded.decode("ms", as: Int64?.self) == lastKey)
        await database.shutdown()
    }

    @Test("replaying snapshots after the state was saved emits nothing; a failed produce leaves state untouched")
    func idempotent() async throws {
        let database = try await ServiceTestSupport.database()
        let publisher = RecordingPublisher()
        let handler = Self.handler(database, publisher)
        let snapshots = try Self.snapshots(matchId: 1322276, count: 30)
        for bytes in snapshots { _ = try await handler.handle(bytes, key: nil) }
        let first = publisher.events.withLock { $0 }
        for bytes in snapshots { _ = try await handler.handle(bytes, key: nil) }
        #expect(publisher.events.withLock { $0 } == first, "replayed snapshots must not emit again")

        // Produce fails for the next snapshot: nothing saved; the retry yields the same eventIds/seqs.
        let next = try Self.snapshots(matchId: 1322276, count: 40)[30..<40]
        publisher.failures.withLock { $0 = 1 }
        await #expect(throws: ServiceTestFailure.self) { _ = try await handler.handle(next.first!, key: nil) }
        let before = try await DetectorStateStore(client: database).load(matchId: "1322276")
        #expect(before?.seq == first.last?.seq)
        for bytes in next { _ = try await handler.handle(bytes, key: nil) }
        let all = publisher.events.withLock { $0 }
        #expect(all.map(\.seq) == Array(1...Int64(all.count)))
        #expect(Set(all.map(\.eventId)).count == all.count)
        await database.shutdown()
    }

    @Test("bad messages are skipped and counted, never fatal")
    func badMessages() async throws {
        let database = try await ServiceTestSupport.database()
        let registry = MetricsRegistry()
        let handler = SnapshotHandler(detector: MatchDetector(), store: DetectorStateStore(client: database), history: FeedBallStore(database: database),
                                      publisher: RecordingPublisher(), logger: ServiceTestSupport.quiet,
                                      metrics: DetectorMetrics(registry: registry))
        #expect(try await handler.handle(Array("not json".utf8), key: nil) == .skipped(reason: "malformed_json"))
        #expect(try await handler.handle(Array(#"{"schema":99}"#.utf8), key: nil) == .skipped(reason: "unsupported_schema"))
        let noFixture = #"{"schema":2,"matchId":"1","polledAt":1,"seq":1,"basis":0,"complete":true,"fixture":{"id":"x"},"removedBallIds":[],"ballCount":0}"#
        #expect(try await handler.handle(Array(noFixture.utf8), key: nil) == .skipped(reason: "invalid_fixture"))
        #expect(registry.render().contains("detector_bad_messages_total"))
        await database.shutdown()
    }

    @Test("a final snapshot whose winner contradicts its balls: counted, logged, and the balls' winner is the result")
    func contradictingWinner() async throws {
        let database = try await ServiceTestSupport.database()
        let registry = MetricsRegistry()
        let publisher = RecordingPublisher()
        let handler = SnapshotHandler(detector: MatchDetector(), store: DetectorStateStore(client: database), history: FeedBallStore(database: database),
                                      publisher: publisher, logger: ServiceTestSupport.quiet, metrics: DetectorMetrics(registry: registry))
        #expect(registry.render().contains(#"detector_feed_contradictions_total{kind="winner_contradicts_balls"} 0"#))
        // 1304076: Rajasthan Royals beat the side chasing by 7 runs; the feed names the loser as the winner.
        let match = try DataDirectory.match(1304076)
        let matchId = String(Int.random(in: 100_000_000...999_999_999))
        var fixture = SportMonksFixtureBuilder(match: match).fixture(at: match.finalPosition)
        let loser = fixture.winnerTeamId == fixture.localteamId ? fixture.visitorteamId : fixture.localteamId
        fixture.winnerTeamId = loser
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(fixture))
        let plan = try FixtureSnapshotPager.plan(matchId: matchId, polledAt: 1_800_000_000_000, fixture: json, after: FixtureFeedCursor())
        for page in plan.encoded { _ = try await handler.handle(page, key: matchId) }
        #expect(registry.render().contains(#"detector_feed_contradictions_total{kind="winner_contradicts_balls"} 1"#))
        let result = publisher.events.withLock { $0 }.last?.displayState.resultLine
        #expect(result == "Rajasthan Royals won by 7 runs")
        await database.shutdown()
    }

    @Test("end to end over Kafka: consume fixtures, produce match.events keyed by matchId, commit after")
    func overKafka() async throws {
        let database = try await ServiceTestSupport.database()
        let input = try await ServiceTestSupport.topic("fixtures")
        let output = try await ServiceTestSupport.topic("events")
        let producer = try ServiceTestSupport.producer()
        let snapshots = try Self.snapshots(matchId: 1426312, count: 25)
        _ = try await producer.send(topic: input, key: "1426312", value: Array("garbage".utf8))
        for bytes in snapshots { _ = try await producer.send(topic: input, key: "1426312", value: bytes) }

        let group = ServiceTestSupport.unique("detector")
        let consumer = try ServiceTestSupport.consumer(topic: input, group: group)
        let publisher = KafkaMatchEventPublisher(producer: producer, topic: output)
        let handler = Self.handler(database, publisher)
        let metrics = DetectorMetrics(registry: MetricsRegistry())
        let loop = Task { try await DetectorLoop.service(consumer: consumer, handler: handler, logger: ServiceTestSupport.quiet, metrics: metrics).run() }

        let reader = try ServiceTestSupport.consumer(topic: output, group: ServiceTestSupport.unique("reader"))
        var received: [MatchBusEvent] = []
        let deadline = ContinuousClock.now + .seconds(60)
        var expected = Int64.max
        while ContinuousClock.now < deadline {
            if expected == Int64.max, let state = try await DetectorStateStore(client: database).load(matchId: "1426312"),
               state.lastPolledAt == 1_800_000_000_000 + 24 * 40_000 {
                expected = state.seq
            }
            if let message = try await reader.poll(timeout: .milliseconds(200)) {
                #expect(message.keyString == "1426312")
                received.append(try MessageCodec.decode(MatchBusEvent.self, from: message.value))
            }
            if Int64(received.count) >= expected { break }
        }
        loop.cancel()
        _ = try? await loop.value
        #expect(Int64(received.count) == expected)
        #expect(received.map(\.seq) == Array(1...Int64(received.count)))
        // Committed past every message (garbage included) once processed.
        try await consumer.close()
        let again = try ServiceTestSupport.consumer(topic: input, group: group)
        let leftover = try await again.poll(timeout: .seconds(8))
        #expect(leftover == nil, "offsets were committed after processing")
        try await again.close()
        try await reader.close()
        try await producer.shutdown()
        await database.shutdown()
    }
}
