import CricsheetReplay
import FakeFeed
import Foundation
import Testing

/// The feed's timeline (`GET /admin/timeline`): each position a response first carried, with the feed's clock, for the
/// match-day checker's freshness.
@Suite struct ServedTimelineTests {
    static let id = 1304076

    @Test("a position is written when a response first carries it, once, with the feed's time; a seek back writes the older one")
    func writesEachServedPositionOnce() async throws {
        let harness = try FeedHarness(ids: [Self.id], configuration: .init(speed: 1, liveMatchIds: [Self.id]))
        defer { harness.stop() }
        let start = Int64(harness.clock.now().timeIntervalSince1970 * 1000)
        #expect(try await harness.request("/admin/timeline").status == 401, "admin needs its token")
        _ = try await harness.api("/api/v2.0/livescores")
        _ = try await harness.api("/api/v2.0/fixtures/\(Self.id)")  // the same position again: nothing new
        harness.clock.advance(by: 3)
        _ = try await harness.api("/api/v2.0/fixtures/\(Self.id)")
        harness.clock.advance(by: 2)
        _ = try await harness.api("/api/v2.0/livescores")
        let seek = try await harness.request("POST", "/admin/matches/\(Self.id)/seek", body: #"{"delivery": 1}"#, admin: true)
        #expect(seek.status == 200)
        _ = try await harness.api("/api/v2.0/livescores")

        let reply = try await harness.request("/admin/timeline", admin: true)
        #expect(reply.status == 200)
        let served = try JSONDecoder().decode([ServedPosition].self, from: Data(reply.body))
        #expect(served.map(\.deliveries) == [0, 3, 5, 1], "\(served)")
        #expect(served.map(\.servedAt) == [start, start + 3_000, start + 5_000, start + 5_000])
        #expect(served.allSatisfy { $0.fixture == Self.id })
        #expect(served.first?.phase == .notStarted && served[1].phase == .inningsInProgress)
    }
}
