import ClientCore
import Contracts
import Testing

@Suite struct LiveActivityServiceTests {
    let api = FakeBackendAPI()
    let clock = FakeClock()
    let store = InMemoryKeyValueStore()
    let kit = InMemoryActivityKit(tokenFactory: { tokenFor($0) })
    let identity = DeviceIdentity(deviceId: "dev-1", apnsEnvironment: .sandbox, appVersion: "1.10.0")

    func makeService(requestLocally: Bool = true) -> LiveActivityService {
        LiveActivityService(
            configuration: ClientConfiguration(identity: identity, requestLocallyOnLiveFollow: requestLocally, staleCheckInterval: 0),
            api: api, activityKit: kit, store: store, clock: clock)
    }

    func bootstrap(_ service: LiveActivityService) -> AppBootstrap {
        AppBootstrap(
            config: AppConfigService(api: api, appVersion: identity.appVersion),
            auth: FixedAuthSessionProvider(AuthSession(userId: "u1")), tasks: service)
    }

    @Test func followingALiveMatchStartsAnActivityAndPostsItsToken() async throws {
        api.set { $0.followResponse = FollowResponse(displayState: displayState(updatedAt: 100)) }
        let service = makeService()
        #expect(try await service.follow(matchId: "m1") == .following)
        let activity = try #require(kit.activities(matchId: "m1").first)
        #expect(activity.currentContent.state == displayState(updatedAt: 100))
        await expectEventually { [api] in api.snapshot.tokens == [TokenPost(matchId: "m1", token: tokenFor(activity.id), deviceId: "dev-1")] }
        #expect(store.strings(forKey: FollowManager.followedKey) == ["m1"])
    }

    @Test func aCapableDeviceStartsOnTheFollowAnswersChannelAndReportsIt() async throws {
        api.set { $0.followResponse = FollowResponse(displayState: displayState(updatedAt: 100), channelId: "Q0hBTg==") }
        let service = LiveActivityService(
            configuration: ClientConfiguration(
                identity: DeviceIdentity(deviceId: "dev-1", apnsEnvironment: .sandbox, appVersion: "2.0", osVersion: "18.2",
                                         supportsBroadcastChannels: true),
                requestLocallyOnLiveFollow: true, staleCheckInterval: 0),
            api: api, activityKit: kit, store: store, clock: clock)
        #expect(await service.notifications.registration.supportsBroadcastChannels == true)
        #expect(try await service.follow(matchId: "m1") == .following)
        let activity = try #require(kit.activities(matchId: "m1").first)
        #expect(activity.channelId == "Q0hBTg==" && activity.currentToken == nil)
        await expectEventually { [api] in api.snapshot.channels == [TokenPost(matchId: "m1", token: "Q0hBTg==", deviceId: "dev-1")] }
        #expect(api.snapshot.tokens.isEmpty, "a channel activity has no update token")
        // A device whose build does not subscribe ignores the answer's channel.
        let plain = makeService()
        _ = try await plain.follow(matchId: "m2")
        #expect(kit.activities(matchId: "m2").first.map { $0.channelId == nil } == true)
    }

    @Test func aBackgroundEndPushEndsTheMatchsActivityAndForgetsTheFollow() async throws {
        api.set { $0.followResponse = FollowResponse(displayState: displayState(updatedAt: 100)) }
        let service = makeService()
        #expect(try await service.follow(matchId: "m1") == .following)
        let activity = try #require(kit.activities(matchId: "m1").first)
        #expect(await service.receiveBackgroundNotification(Array(#"{"aps":{"content-available":1}}"#.utf8)) == false, "not ours")
        #expect(activity.currentState == .active)
        let end = BackgroundEndPayload.json(matchId: "m1", reason: "user_unfollow")
        #expect(await service.receiveBackgroundNotification(Array(end.utf8)))
        #expect(activity.currentState == .dismissed, "ended at once, like a local unfollow")
        #expect(await service.followedMatchIds().isEmpty)
        #expect(await service.receiveBackgroundNotification(Array(BackgroundEndPayload.json(matchId: "m9", reason: "user_unfollow").utf8)),
                "a match without an activity here: nothing to end, still handled")
    }

    @Test func followingAnUpcomingMatchWaitsForPushToStart() async throws {
        let service = makeService()
        #expect(try await service.follow(matchId: "m1") == .following)
        #expect(kit.requestCount == 0)
    }

    @Test func followingWithLiveActivitiesDisabledShowsAWarning() async throws {
        api.set { $0.followResponse = FollowResponse(displayState: displayState()) }
        kit.enabled = false
        let service = makeService()
        #expect(try await service.follow(matchId: "m1") == .followingWithWarning)
        #expect(kit.requestCount == 0)
        #expect(await service.followedMatchIds() == ["m1"])
        kit.enabled = true
        await service.refreshLiveActivitiesPermission()
        #expect(await service.bellState(matchId: "m1") == .following)
    }

    @Test func pushToStartFlowFromTokenToEnd() async throws {
        let service = makeService()
        #expect(await bootstrap(service).run() == .ready(session: AuthSession(userId: "u1")))
        kit.issuePushToStartToken("p2s1", times: 2)
        await expectEventually { [api] in api.snapshot.devices.last?.pushToStartToken == "p2s1" }
        try await Task.sleep(for: .milliseconds(30))
        #expect(api.snapshot.devices.map(\.pushToStartToken) == [nil, "p2s1"])

        _ = try await service.follow(matchId: "m1")
        let activity = try #require(kit.startFromPush(matchId: "m1", content: ActivityContent(state: displayState(updatedAt: 200), timestamp: 200)))
        await expectEventually { [api] in api.snapshot.tokens.map(\.token) == [tokenFor(activity.id)] }

        let update = ActivityPush(event: .update, timestamp: 210, contentState: displayState(updatedAt: 210, score: "90/6"))
        #expect(await service.receive(update) == .applied)
        #expect(activity.currentContent.state.compactLeading.score == "90/6")
        let end = ActivityPush(event: .end, timestamp: 220, contentState: displayState(updatedAt: 220, score: "180/7"), dismissalDate: clock.epoch + 60)
        #expect(await service.receive(end) == .ended)
        #expect(activity.currentState == .ended)
        #expect(await service.bellState(matchId: "m1") == .following)
        await service.shutdown()
    }

    @Test func dismissingTheActivityUnfollowsLocally() async throws {
        api.set { $0.followResponse = FollowResponse(displayState: displayState()) }
        let service = makeService()
        try await service.follow(matchId: "m1")
        try #require(kit.activities(matchId: "m1").first).dismissByUser()
        await expectEventually { await service.followedMatchIds().isEmpty }
        #expect(api.snapshot.dismissed == ["m1/dev-1"])
        #expect(api.calls(.unfollow) == 0)
        #expect(await service.bellState(matchId: "m1") == .notFollowing)
    }

    @Test func unfollowEndsTheActivityWithoutReportingADismissal() async throws {
        api.set { $0.followResponse = FollowResponse(displayState: displayState()) }
        let service = makeService()
        try await service.follow(matchId: "m1")
        #expect(await service.unfollow(matchId: "m1") == .confirmed)
        #expect(kit.activities(matchId: "m1").first?.currentState == .dismissed)
        #expect(api.snapshot.unfollows == ["m1"])
        try await Task.sleep(for: .milliseconds(30))
        #expect(api.calls(.dismissed) == 0)
    }

    @Test func relaunchRestoresFollowsAndActivities() async throws {
        api.set { $0.followResponse = FollowResponse(displayState: displayState(updatedAt: clock.epoch)) }
        let first = makeService()
        try await first.follow(matchId: "m1")
        api.fail(.unfollow, times: 1)
        api.set { $0.followResponse = FollowResponse() }
        try await first.follow(matchId: "m2")
        #expect(await first.unfollow(matchId: "m2") == .queued)
        await first.shutdown()

        let second = makeService()
        #expect(await bootstrap(second).run() == .ready(session: AuthSession(userId: "u1")))
        #expect(await second.followedMatchIds() == ["m1"])
        #expect(api.snapshot.unfollows == ["m2"])
        #expect(await second.lifecycle.trackedActivities.map(\.origin) == [.restored])
        // The update token observer is attached again (the first launch's cache is gone, so it is re-posted).
        await expectEventually { [api] in api.snapshot.tokens.count == 2 }
    }

    @Test func foregroundStaleCheckEndsQuietActivities() async throws {
        api.set { $0.followResponse = FollowResponse(displayState: displayState()) }
        let service = makeService()
        try await service.follow(matchId: "m1")
        clock.advance(by: 30 * 60)
        #expect(await service.runStaleCheck() == ["m1"])
        #expect(await service.followedMatchIds() == ["m1"])
    }
}
