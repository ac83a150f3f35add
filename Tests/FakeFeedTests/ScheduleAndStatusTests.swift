import SharedTestSupport
import Contracts
import CricsheetReplay
import FakeFeed
import Foundation
import Testing

/// Schedule, status transitions and the `/fixtures` list of the fake, over HTTP with a manual clock.
@Suite struct ScheduleAndStatusTests {
    @Test func liveMatchWalksThroughItsStatuses() async throws {
        let id = 1144504
        let match = try DataDirectory.match(id)
        let breakSteps = 4, linger = 3
        let harness = try FeedHarness(ids: [id, 1304076], configuration: .init(
            speed: 2, liveMatchIds: [id], breakSteps: breakSteps, lingerSteps: linger))
        defer { harness.stop() }
        #expect(try await harness.live() == [id: "NS"], "only the --live match is listed")
        harness.clock.advance(by: 0.5)  // one step at 2 deliveries per second
        #expect(try await harness.live()[id] == "1st Innings")
        let first = match.innings[0].deliveryCount
        try harness.feed.seek(id, delivery: first, phase: .inningsBreak)
        #expect(try await harness.live()[id] == "Innings Break")
        harness.clock.advance(by: Double(breakSteps - 1) / 2)
        #expect(try await harness.live()[id] == "Innings Break", "the break is held for breakSteps steps")
        harness.clock.advance(by: 0.5)
        #expect(try await harness.live()[id] == "2nd Innings")
        try harness.feed.seek(id, delivery: match.totalDeliveries, phase: .finished)
        let finished = try #require(try await harness.api("/api/v2.0/fixtures/\(id)").json?["data"])
        #expect(finished["status"] == .string("Finished"))
        #expect(finished["winner_team_id"] != .null)
        #expect(finished["note"] != .null)
        harness.clock.advance(by: Double(linger) / 2)
        #expect(try await harness.live()[id] == "Finished", "lingers in livescores")
        harness.clock.advance(by: 0.5)
        #expect(try await harness.live()[id] == nil, "drops out of livescores after lingerSteps")
        #expect(try await harness.api("/api/v2.0/fixtures/\(id)").json?["data"]?["status"] == .string("Finished"))
    }

    @Test func noResultMatchIsInterruptedThenAbandoned() async throws {
        let id = 1298152  // "no result"
        let harness = try FeedHarness(ids: [id], configuration: .init(liveMatchIds: [id], breakSteps: 3))
        defer { harness.stop() }
        let match = try DataDirectory.match(id)
        try harness.feed.seek(id, delivery: match.totalDeliveries, phase: .interrupted)
        #expect(try await harness.live()[id] == "Int.")
        harness.clock.advance(by: 3)
        #expect(try await harness.live()[id] == "Aban.")
    }

    @Test func fixturesFilterByStartDateWithPagination() async throws {
        let harness = try FeedHarness(configuration: .init(upcomingDays: 1, idOffset: 0, perPage: 5))
        defer { harness.stop() }
        // 21 matches from tomorrow 14:00 UTC, 3 h apart: 2026-01-16 … (clock 1_800_000_000 = 2027-01-15T08:00Z).
        let today = SportMonksTime.startOfDay(harness.clock.now())
        let from = SportMonksTime.formatDay(today.addingTimeInterval(86_400))
        let to = SportMonksTime.formatDay(today.addingTimeInterval(2 * 86_400))
        let page1 = try await harness.api("/api/v2.0/fixtures", "filter[starts_between]=\(from),\(to)")
        #expect(page1.status == 200)
        let meta = try #require(page1.json?["meta"])
        // Tomorrow 14:00 … day after 23:59:59: starts at +14 h, +17 h, … +47 h → 12 matches.
        #expect(meta["total"] == .int(12))
        #expect(meta["per_page"] == .int(5) && meta["last_page"] == .int(3) && meta["current_page"] == .int(1))
        #expect(meta["from"] == .int(1) && meta["to"] == .int(5))
        #expect(page1.json?["links"]?["prev"] == .null)
        guard case .string(let next)? = page1.json?["links"]?["next"] else { Issue.record("no next link"); return }
        #expect(next.hasSuffix("/api/v2.0/fixtures?page=2"))
        let page3 = try await harness.api("/api/v2.0/fixtures", "filter[starts_between]=\(from),\(to)&page=3")
        guard case .array(let last)? = page3.json?["data"] else { Issue.record("no data"); return }
        #expect(last.count == 2)
        #expect(page3.json?["links"]?["next"] == .null)
        var starts: [String] = []
        for page in 1...3 {
            let reply = try await harness.api("/api/v2.0/fixtures", "filter[starts_between]=\(from),\(to)&page=\(page)")
            if case .array(let items)? = reply.json?["data"] {
                for item in items { if case .string(let s)? = item["starting_at"] { starts.append(s) } }
            }
        }
        #expect(starts == starts.sorted() && starts.count == 12, "sorted by starting_at")
        let all = try await harness.api("/api/v2.0/fixtures", "filter[starts_between]=\(from),\(from)")
        #expect(all.json?["meta"]?["total"] == .int(4), "date-only upper bound covers the whole day: 14,17,20,23 h")
        let bad = try await harness.api("/api/v2.0/fixtures", "filter[starts_between]=yesterday")
        #expect(bad.status == 400)
        #expect(try await harness.live().isEmpty, "nothing live before the first start")
    }

    @Test func realDatesAreLongFinished() async throws {
        let harness = try FeedHarness(ids: [287862])
        defer { harness.stop() }
        let reply = try await harness.api("/api/v2.0/fixtures", "filter[starts_between]=2007-09-14,2007-09-14")
        guard case .array(let items)? = reply.json?["data"], let fixture = items.first else { Issue.record("missing"); return }
        #expect(fixture["status"] == .string("Finished"))
        #expect(fixture["starting_at"] == .string("2007-09-14T14:00:00.000000Z"))
        #expect(try await harness.live().isEmpty)
    }
}
