import Contracts
import FakeFeed
import Foundation
import Postgres
import Runtime
import ServiceKit
import SharedTestSupport
import Testing
@testable import Poller

/// Two poller replicas: one leads under the advisory lock, the other waits (/ready false) and takes over.
@Suite struct LeaderTests {
    @Test func secondReplicaWaitsAndTakesOverWhenTheFirstStops() async throws {
        let (database, schema) = try await PollerTestSupport.database()
        let producer = try PollerTestSupport.producer()
        let offset = PollerTestSupport.uniqueOffset()
        let fake = try FakeSportMonks(ids: [1304076], configuration: .init(liveMatchIds: [1304076], idOffset: offset))
        defer { fake.stop() }
        try fake.feed.pause(1304076 + offset)
        var configuration = PollerConfiguration()
        configuration.baseURL = fake.server.baseURL
        configuration.include = "localteam,visitorteam,runs"
        configuration.lockName = PollerTestSupport.uniqueName("poller-lock")
        configuration.fixturesTopic = PollerTestSupport.fixturesTopic
        configuration.leaderRetry = .milliseconds(200)
        configuration.pollInterval = .milliseconds(200)
        func replica(_ readiness: Readiness) -> PollerService {
            PollerService(configuration: configuration, database: database, producer: producer, clock: fake.clock,
                          sleeper: TaskSleeper(), random: { 0.5 }, metrics: PollerMetrics(registry: MetricsRegistry()),
                          readiness: readiness, logger: PollerTestSupport.logger)
        }
        let readyA = Readiness(), readyB = Readiness()
        let serviceA = replica(readyA), serviceB = replica(readyB)
        let a = Task { await serviceA.run() }
        #expect(await eventually(every: .milliseconds(50)) { readyA.isReady }, "the first replica takes the lock")
        let b = Task { await serviceB.run() }
        try await Task.sleep(for: .seconds(1))
        #expect(!readyB.isReady && readyB.unmet == ["leader"], "the second replica waits, /ready false")
        #expect(readyA.isReady)
        #expect(await eventually(every: .milliseconds(50)) { fake.feed.requestsServed["livescores", default: 0] > 0 }, "the leader polls")

        a.cancel()
        await a.value
        #expect(!readyA.isReady)
        #expect(await eventually(every: .milliseconds(50)) { readyB.isReady }, "the second replica takes over once the first stops")
        let before = fake.feed.requestsServed["livescores", default: 0]
        #expect(await eventually(every: .milliseconds(50)) { fake.feed.requestsServed["livescores", default: 0] > before }, "and polls")
        b.cancel()
        await b.value
        let snapshots = try await PollerTestSupport.snapshots(matchId: String(1304076 + offset), expected: 1)
        #expect(snapshots.count == 1, "the new leader did not republish the unchanged fixture")
        try await producer.shutdown()
        await PollerTestSupport.dropSchema(schema, database)
    }
}
