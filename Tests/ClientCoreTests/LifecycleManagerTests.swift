import ClientCore
import Contracts
import Foundation
import Testing

@Suite struct LifecycleManagerTests {
    let api = FakeBackendAPI()
    let clock = FakeClock()
    let kit = InMemoryActivityKit(tokenFactory: { tokenFor($0) })
    let lifecycle = LifecycleRecorder()
    let events = EventRecorder()

    func makeManager() -> LifecycleManager {
        LifecycleManager(
            deviceId: "dev-1", api: api, activityKit: kit, clock: clock, retry: RetryPolicy(), events: events.sink,
            onEvent: lifecycle.handler)
    }

    func update(_ matchId: String = "m1", at timestamp: Int64, score: String) -> ActivityPush {
        ActivityPush(event: .update, timestamp: timestamp, contentState: displayState(matchId, updatedAt: timestamp, score: score))
    }

    @Test func localRequestUsesTokenPushTypeAndTheInitialState() async throws {
        let manager = makeManager()
        let initial = displayState(updatedAt: 1_799_999_990)
        let id = try await manager.request(matchId: "m1", initialState: initial)
        let activity = try #require(kit.activities(matchId: "m1").first)
        #expect(activity.id == id)
        #expect(activity.currentContent == ActivityContent(state: initial, timestamp: 1_799_999_990))
        #expect(try await manager.request(matchId: "m1", initialState: initial) == id)
        #expect(kit.requestCount == 1)
        #expect(lifecycle.all == ["started m1 \(id) localRequest"])
    }

    @Test func requestFailsWhenLiveActivitiesAreDisabled() async {
        kit.enabled = false
        let manager = makeManager()
        await #expect(throws: LiveActivityStartError.disabled(matchId: "m1")) {
            try await manager.request(matchId: "m1", initialState: displayState())
        }
        #expect(lifecycle.all == ["startFailed m1"])
        #expect(kit.requestCount == 0)
    }

    @Test func pushStartedActivityIsAdopted() async throws {
        let manager = makeManager()
        await manager.startAdopting()
        let activity = try #require(kit.startFromPush(matchId: "m1", content: ActivityContent(state: displayState(), timestamp: 50)))
        await expectEventually { await manager.hasActivity(matchId: "m1") }
        #expect(await manager.trackedActivities == [
            TrackedActivity(matchId: "m1", activityId: activity.id, origin: .pushToStart, lastAppliedTimestamp: 50)
        ])
        #expect(lifecycle.all == ["started m1 \(activity.id) pushToStart"])
    }

    @Test func aPushStartedActivityReplacesAnOlderOneOfTheSameMatch() async throws {
        let manager = makeManager()
        let oldId = try await manager.request(matchId: "m1", initialState: displayState())
        let fresh = try #require(kit.startFromPush(matchId: "m1", content: ActivityContent(state: displayState(), timestamp: 60)))
        #expect(await manager.adopt(fresh))
        let old = try #require(kit.activities(matchId: "m1").first)
        #expect(old.id == oldId)
        #expect(old.currentState == .dismissed)
        #expect(await manager.trackedActivities.map(\.activityId) == [fresh.id])
        #expect(api.snapshot.dismissed == [])
        #expect(lifecycle.all.contains("ended m1 \(oldId) system"))
    }

    @Test func updatesApplyInTimestampOrder() async throws {
        let manager = makeManager()
        try await manager.request(matchId: "m1", initialState: displayState(updatedAt: 90))
        let activity = try #require(kit.activities(matchId: "m1").first)
        #expect(await manager.apply(update(at: 100, score: "10/0")) == .applied)
        #expect(await manager.apply(update(at: 99, score: "9/0")) == .ignoredOlder(lastApplied: 100))
        #expect(activity.currentContent.state.compactLeading.score == "10/0")
        #expect(await manager.apply(update(at: 100, score: "11/0")) == .applied)
        #expect(await manager.apply(update(at: 101, score: "12/1")) == .applied)
        #expect(activity.currentContent.state.compactLeading.score == "12/1")
        #expect(activity.currentContent.timestamp == 101)
        #expect(events.all.contains(.updateIgnored(matchId: "m1", timestamp: 99, lastApplied: 100)))
        #expect(await manager.apply(update("m9", at: 200, score: "1/0")) == .notTracked)
    }

    @Test func endEventEndsTheActivityWithItsDismissalDate() async throws {
        let manager = makeManager()
        try await manager.request(matchId: "m1", initialState: displayState(updatedAt: 90))
        let activity = try #require(kit.activities(matchId: "m1").first)
        let final = displayState(updatedAt: 120, score: "180/7")
        let dismissAt = clock.epoch + 3600
        let end = ActivityPush(event: .end, timestamp: 120, contentState: final, dismissalDate: dismissAt)
        #expect(await manager.apply(end) == .ended)
        #expect(activity.currentState == .ended)
        #expect(activity.currentContent == ActivityContent(state: final, timestamp: 120))
        #expect(activity.endedWith == .after(Date(timeIntervalSince1970: TimeInterval(dismissAt))))
        #expect(await manager.hasActivity(matchId: "m1") == false)
        #expect(await manager.apply(update(at: 130, score: "181/7")) == .notTracked)
        #expect(lifecycle.all.last == "ended m1 \(activity.id) endEvent")
        #expect(api.snapshot.dismissed == [])
    }

    @Test func endEventWithAPastDismissalDateRemovesAtOnce() async throws {
        let manager = makeManager()
        try await manager.request(matchId: "m1", initialState: displayState(updatedAt: 90))
        let end = ActivityPush(event: .end, timestamp: 80, contentState: displayState(updatedAt: 80), dismissalDate: clock.epoch - 1)
        #expect(await manager.apply(end) == .ended)
        #expect(kit.activities(matchId: "m1").first?.endedWith == .immediate)
    }

    @Test func userDismissalIsReportedToTheBackend() async throws {
        let manager = makeManager()
        let id = try await manager.request(matchId: "m1", initialState: displayState())
        try #require(kit.activities(matchId: "m1").first).dismissByUser()
        await expectEventually { lifecycle.all.contains("dismissed m1 \(id)") }
        #expect(api.snapshot.dismissed == ["m1/dev-1"])
        #expect(await manager.hasActivity(matchId: "m1") == false)
        #expect(events.all.contains(.activityDismissedByUser(matchId: "m1", activityId: id, reported: true)))
    }

    @Test func dismissalReportIsRetried() async throws {
        api.fail(.dismissed, times: 2)
        let manager = makeManager()
        let id = try await manager.request(matchId: "m1", initialState: displayState())
        try #require(kit.activities(matchId: "m1").first).dismissByUser()
        await expectEventually { lifecycle.all.contains("dismissed m1 \(id)") }
        #expect(api.calls(.dismissed) == 3)
        #expect(api.snapshot.dismissed == ["m1/dev-1"])
    }

    @Test func localEndIsNotReportedAsADismissal() async throws {
        let manager = makeManager()
        let id = try await manager.request(matchId: "m1", initialState: displayState())
        await manager.end(matchId: "m1")
        let activity = try #require(kit.activities(matchId: "m1").first)
        #expect(activity.currentState == .dismissed)
        try await Task.sleep(for: .milliseconds(50))
        #expect(api.calls(.dismissed) == 0)
        #expect(lifecycle.all == ["started m1 \(id) localRequest", "ended m1 \(id) userUnfollow"])
    }

    @Test func staleCheckKeepsAnActivityAt29Minutes59Seconds() async throws {
        let manager = makeManager()
        try await manager.request(matchId: "m1", initialState: displayState())
        clock.advance(by: 29 * 60 + 59)
        #expect(await manager.runStaleCheck() == [])
        #expect(kit.activities(matchId: "m1").first?.currentState == .active)
    }

    @Test func staleCheckEndsAnActivityAt30Minutes() async throws {
        let manager = makeManager()
        let id = try await manager.request(matchId: "m1", initialState: displayState())
        clock.advance(by: 30 * 60)
        #expect(await manager.runStaleCheck() == ["m1"])
        #expect(kit.activities(matchId: "m1").first?.currentState == .ended)
        #expect(lifecycle.all.last == "ended m1 \(id) stale")
    }

    @Test func anUpdateRestartsTheStaleTimer() async throws {
        let manager = makeManager()
        try await manager.request(matchId: "m1", initialState: displayState(updatedAt: 10))
        clock.advance(by: 20 * 60)
        #expect(await manager.apply(update(at: 20, score: "1/0")) == .applied)
        clock.advance(by: 29 * 60 + 59)
        #expect(await manager.runStaleCheck() == [])
        clock.advance(by: 1)
        #expect(await manager.runStaleCheck() == ["m1"])
    }

    /// Lunch: the backend's update at the break carries a stale-date beyond it, and no update comes for
    /// 40 minutes; the activity stays until that stale-date, then the 30-minute rule applies.
    @Test func aStaleDateBeyondABreakKeepsTheActivityThroughIt() async throws {
        let manager = makeManager()
        try await manager.request(matchId: "m1", initialState: displayState(updatedAt: 10))
        var lunch = update(at: 20, score: "1/0")
        lunch.staleDate = clock.epoch + 2 * 3600
        #expect(await manager.apply(lunch) == .applied)
        clock.advance(by: 40 * 60)
        #expect(await manager.runStaleCheck() == [], "40 minutes of lunch: still before the stale-date")
        clock.advance(by: 80 * 60 - 1)
        #expect(await manager.runStaleCheck() == [])
        clock.advance(by: 1)
        #expect(await manager.runStaleCheck() == ["m1"], "past the stale-date and 30 minutes without an update")
    }

    @Test func anIgnoredOlderUpdateDoesNotRestartTheStaleTimer() async throws {
        let manager = makeManager()
        try await manager.request(matchId: "m1", initialState: displayState(updatedAt: 10))
        clock.advance(by: 20 * 60)
        #expect(await manager.apply(update(at: 5, score: "1/0")) == .ignoredOlder(lastApplied: 10))
        clock.advance(by: 10 * 60)
        #expect(await manager.runStaleCheck() == ["m1"])
    }

    @Test func restoreReattachesToSurvivingActivitiesAndRunsTheStaleCheck() async throws {
        let now = clock.epoch
        let firstLaunch = makeManager()
        try await firstLaunch.request(matchId: "fresh", initialState: displayState("fresh", updatedAt: now - 60))
        try await firstLaunch.request(matchId: "old", initialState: displayState("old", updatedAt: now - 1800))
        try await firstLaunch.request(matchId: "gone", initialState: displayState("gone", updatedAt: now))
        await firstLaunch.end(matchId: "gone")
        await firstLaunch.stopAll()

        let relaunched = makeManager()
        #expect(await relaunched.restore() == ["fresh", "old"])
        #expect(await relaunched.trackedActivities.map(\.matchId) == ["fresh"])
        #expect(await relaunched.trackedActivities.first?.origin == .restored)
        #expect(kit.activities(matchId: "old").first?.currentState == .ended)
        #expect(lifecycle.all.contains("started fresh activity-1 restored"))
        #expect(lifecycle.all.contains("ended old activity-2 stale"))

        // The dismissal observer is attached again.
        try #require(kit.activities(matchId: "fresh").first).dismissByUser()
        await expectEventually { [api] in api.snapshot.dismissed == ["fresh/dev-1"] }
    }

    @Test func periodicStaleCheckRuns() async throws {
        let manager = makeManager()
        try await manager.request(matchId: "m1", initialState: displayState())
        clock.advance(by: 30 * 60)
        await manager.startStaleCheckLoop(interval: 60)
        await expectEventually { await manager.hasActivity(matchId: "m1") == false }
        await manager.stopAll()
    }
}
