import Contracts
import Cricket
import Foundation
import Runtime
import Matches

/// Copies the schedule of a window of days (yesterday … today + `windowDays`) from `GET /fixtures`
/// (all pages) into `matches`, with a pre-formatted card and `is_live`.
struct ScheduleSync: Sendable {
    let client: SportMonksClient
    let store: MatchStore
    let include: String
    let windowDays: Int
    let clock: any WallClock
    let metrics: PollerMetrics
    let logger: Logger
    /// Safety bound on pages per sync.
    var maxPages = 50

    /// Syncs once; returns how many rows were inserted or changed.
    /// - Throws: `FeedRequestError` or a PostgreSQL error.
    func syncOnce() async throws -> Int {
        let now = clock.now()
        let from = Self.day(now.addingTimeInterval(-86_400))
        let to = Self.day(now.addingTimeInterval(TimeInterval(windowDays) * 86_400))
        var changed = 0
        var page = 1
        while page <= maxPages {
            let body = try await client.fixtures(startsBetween: from, and: to, include: include, page: page)
            let path = "/fixtures?page=\(page)"
            guard case .object(let top) = try FeedPoller.json(body, path: path), case .array(let items)? = top["data"] else {
                throw FeedRequestError.malformed(path: path, reason: "no data array", excerpt: "")
            }
            for item in items {
                let fixture: SportMonksFixture
                do {
                    fixture = try FixtureFingerprint.fixtureWithoutBalls(item)
                } catch {
                    metrics.error("invalid_fixture")
                    continue
                }
                let row = MatchStore.Row(fixture)
                if try await store.upsertSchedule(row, at: now) { changed += 1 }
            }
            guard case .object(let meta)? = top["meta"], case .int(let current)? = meta["current_page"],
                  case .int(let last)? = meta["last_page"], current < last else { break }
            page += 1
        }
        metrics.scheduleRows.increment(by: changed)
        logger.info("schedule synced", ["from": from, "to": to, "changed": String(changed)])
        return changed
    }

    /// "YYYY-MM-DD" (UTC).
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }
}
