@testable import API
import Foundation
import SharedTestSupport
import Testing

/// Issue 22: while PostgreSQL does not answer, a follow is answered 503 with Retry-After (not 500,
/// not a hang), and follows work again once it answers. The stall is this api's own backend
/// process paused (SIGSTOP) — pool size 1 — so the shared server keeps serving other tests.
@Suite("Database stall")
struct DatabaseStallTests {
    @Test func aFollowDuringADatabaseStallIsAnswered503AndWorksAfterwards() async throws {
        let api = try await APITestHarness.make(poolSize: 1, queryTimeout: .seconds(1))
        defer { api.server.stopInBackground() }
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: false, startsAt: Date().addingTimeInterval(86_400))
        try await api.registerDevice(user, "phone")
        let backend = try await api.database.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int32.self)
        try #require(kill(backend, SIGSTOP) == 0, "cannot SIGSTOP backend \(backend) (errno \(errno)): run the tests as root")
        let started = ContinuousClock.now
        let stalled: WireResponse
        do {
            stalled = try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "phone"])
        } catch {
            kill(backend, SIGCONT)
            throw error
        }
        let waited = ContinuousClock.now - started
        kill(backend, SIGCONT)
        #expect(stalled.status == 503, "\(stalled.status) \(stalled.text)")
        #expect(stalled.headers["retry-after"] == "2", "Retry-After: \(stalled.headers)")
        #expect(stalled.text.contains("database"), "\(stalled.text)")
        #expect(waited < .seconds(30), "answered at the query timeout, not hung: \(waited)")

        let after = try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "phone"])
        #expect(after.status == 200, "\(after.status) \(after.text)")
        #expect(try await api.follows(match, user), "the follow is recorded once the database answers")
    }
}
