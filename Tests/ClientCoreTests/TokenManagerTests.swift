import ClientCore
import Contracts
import Testing

@Suite struct TokenManagerTests {
    let api = FakeBackendAPI()
    let clock = FakeClock()
    let events = EventRecorder()
    let identity = DeviceIdentity(deviceId: "dev-1", apnsEnvironment: .sandbox, appVersion: "1.4.0")

    func makeManager(retry: RetryPolicy = RetryPolicy()) -> (TokenManager, NotificationService) {
        let notifications = NotificationService(identity: identity, api: api, retry: retry, clock: clock)
        let manager = TokenManager(
            deviceId: "dev-1", api: api, notifications: notifications, retry: retry, clock: clock, events: events.sink)
        return (manager, notifications)
    }

    @Test func doubleFiredPushToStartTokenIsRegisteredOnce() async {
        let (manager, _) = makeManager()
        let (stream, continuation) = AsyncStream<String>.makeStream()
        await manager.observePushToStartTokens(stream)
        continuation.yield("aa11")
        continuation.yield("aa11")
        continuation.yield("bb22")
        continuation.finish()
        await manager.waitForObservers()
        #expect(api.snapshot.devices.map(\.pushToStartToken) == ["aa11", "bb22"])
        #expect(events.all.contains(.tokenDuplicateDropped(kind: .pushToStart, matchId: nil, token: "aa11")))
        #expect(await manager.lastSentPushToStartToken == "bb22")
    }

    @Test func pushToStartRegistrationKeepsTheDeviceToken() async {
        let (manager, notifications) = makeManager()
        _ = await notifications.updatePushToken("dd00")
        _ = await manager.handlePushToStartToken("aa11")
        let last = api.snapshot.devices.last
        #expect(last == DeviceRegistration(
            deviceId: "dev-1", pushToken: "dd00", pushToStartToken: "aa11", apnsEnvironment: .sandbox, appVersion: "1.4.0"))
    }

    @Test func updateTokenIsCachedPerMatchAndRotationsArePosted() async {
        let (manager, _) = makeManager()
        #expect(await manager.handleUpdateToken("t1", matchId: "m1") == .posted(attempts: 1))
        #expect(await manager.handleUpdateToken("t1", matchId: "m1") == .duplicate)
        #expect(await manager.handleUpdateToken("t1", matchId: "m2") == .posted(attempts: 1))
        #expect(await manager.handleUpdateToken("t2", matchId: "m1") == .posted(attempts: 1))
        #expect(api.snapshot.tokens == [
            TokenPost(matchId: "m1", token: "t1", deviceId: "dev-1"),
            TokenPost(matchId: "m2", token: "t1", deviceId: "dev-1"),
            TokenPost(matchId: "m1", token: "t2", deviceId: "dev-1"),
        ])
        #expect(await manager.lastSentToken(matchId: "m1") == "t2")
    }

    @Test func failedPostIsRetriedWithBackoff() async {
        let (manager, _) = makeManager()
        api.fail(.activityToken, times: 2)
        #expect(await manager.handleUpdateToken("t1", matchId: "m1") == .posted(attempts: 3))
        #expect(clock.sleeps == [1, 2])
        #expect(api.calls(.activityToken) == 3)
        #expect(await manager.lastSentToken(matchId: "m1") == "t1")
    }

    @Test func attemptsAreBoundedAndAFailedTokenIsNotCached() async {
        let (manager, _) = makeManager(retry: RetryPolicy(maxAttempts: 4, initialDelay: 1, multiplier: 2, maxDelay: 3))
        api.fail(.activityToken, times: 4)
        let outcome = await manager.handleUpdateToken("t1", matchId: "m1")
        #expect(outcome == .failed(attempts: 4, reason: String(describing: FakeAPIError(route: .activityToken))))
        #expect(clock.sleeps == [1, 2, 3])
        #expect(await manager.lastSentToken(matchId: "m1") == nil)
        // The same value arriving again is tried again, not dropped as a duplicate.
        #expect(await manager.handleUpdateToken("t1", matchId: "m1") == .posted(attempts: 1))
    }

    @Test func activityTokenStreamIsObservedIncludingRotation() async throws {
        let (manager, _) = makeManager()
        let kit = InMemoryActivityKit()
        let handle = try await kit.request(matchId: "m1", content: ActivityContent(state: displayState(), timestamp: 1), pushType: .token)
        let activity = try #require(handle as? InMemoryActivity)
        await manager.observeUpdateTokens(of: activity)
        activity.issueToken("t1")
        activity.issueToken("t1")
        activity.issueToken("t2")
        await expectEventually { [api] in api.snapshot.tokens.map(\.token) == ["t1", "t2"] }
        await manager.stopObserving(activityId: activity.id)
        activity.issueToken("t3")
        try await Task.sleep(for: .milliseconds(50))
        #expect(api.snapshot.tokens.map(\.token) == ["t1", "t2"])
    }

    @Test func retryPolicyDelaysAreBounded() {
        #expect(RetryPolicy(maxAttempts: 5, initialDelay: 1, multiplier: 2, maxDelay: 5).delays == [1, 2, 4, 5])
        #expect(RetryPolicy(maxAttempts: 0).delays == [])
    }
}
