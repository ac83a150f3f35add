import ClientCore
import Testing

@Suite struct FollowManagerTests {
    let api = FakeBackendAPI()
    let store = InMemoryKeyValueStore()

    func makeManager() -> FollowManager { FollowManager(deviceId: "dev-1", api: api, store: store) }

    @Test func followIsPersistedAtOnceAndPendingUntilTheServerAnswers() async throws {
        let manager = makeManager()
        api.set { $0.holdFollows = true }
        let follow = Task { try await manager.follow(matchId: "m1") }
        await expectEventually { [store] in store.strings(forKey: FollowManager.followedKey) == ["m1"] }
        #expect(await manager.bellState(matchId: "m1") == .pending)
        api.releaseFollows()
        _ = try await follow.value
        #expect(await manager.bellState(matchId: "m1") == .following)
        #expect(api.snapshot.follows == ["m1"])
    }

    @Test func failedFollowIsRolledBack() async {
        let manager = makeManager()
        api.fail(.follow, times: 1)
        await #expect(throws: FollowError.requestFailed(matchId: "m1", reason: String(describing: FakeAPIError(route: .follow)))) {
            _ = try await manager.follow(matchId: "m1")
        }
        #expect(store.strings(forKey: FollowManager.followedKey) == [])
        #expect(await manager.bellState(matchId: "m1") == .notFollowing)
    }

    @Test func unfollowIsLocalAtOnceAndConfirmed() async throws {
        let manager = makeManager()
        _ = try await manager.follow(matchId: "m1")
        #expect(await manager.unfollow(matchId: "m1") == .confirmed)
        #expect(store.strings(forKey: FollowManager.followedKey) == [])
        #expect(api.snapshot.unfollows == ["m1"])
        #expect(await manager.bellState(matchId: "m1") == .notFollowing)
    }

    @Test func failedUnfollowIsQueuedAndRetriedOnTheNextLaunch() async throws {
        let first = makeManager()
        _ = try await first.follow(matchId: "m1")
        api.fail(.unfollow, times: 1)
        #expect(await first.unfollow(matchId: "m1") == .queued)
        #expect(await first.isFollowing("m1") == false)
        #expect(store.strings(forKey: FollowManager.pendingUnfollowsKey) == ["m1"])

        let relaunched = makeManager()
        #expect(await relaunched.queuedUnfollows == ["m1"])
        try await relaunched.sync()
        #expect(api.snapshot.unfollows == ["m1"])
        #expect(await relaunched.queuedUnfollows == [])
        #expect(await relaunched.followedMatchIds == [])
        #expect(store.strings(forKey: FollowManager.pendingUnfollowsKey) == [])
    }

    @Test func syncTakesTheServerListWithPendingUnfollowsOnTop() async throws {
        store.setStrings(["a", "b"], forKey: FollowManager.followedKey)
        store.setStrings(["d"], forKey: FollowManager.pendingUnfollowsKey)
        api.set { $0.serverFollows = ["b", "c", "d"] }
        api.fail(.unfollow)
        let manager = makeManager()
        try await manager.sync()
        #expect(await manager.followedMatchIds == ["b", "c"])
        #expect(await manager.queuedUnfollows == ["d"])
        #expect(store.strings(forKey: FollowManager.followedKey) == ["b", "c"])
    }

    @Test func failedSyncKeepsLocalState() async {
        store.setStrings(["a"], forKey: FollowManager.followedKey)
        api.fail(.listFollows)
        let manager = makeManager()
        await #expect(throws: FollowError.syncFailed(reason: String(describing: FakeAPIError(route: .listFollows)))) {
            try await manager.sync()
        }
        #expect(await manager.followedMatchIds == ["a"])
    }

    @Test func followCancelsAQueuedUnfollow() async throws {
        store.setStrings(["m1"], forKey: FollowManager.pendingUnfollowsKey)
        let manager = makeManager()
        _ = try await manager.follow(matchId: "m1")
        #expect(await manager.queuedUnfollows == [])
    }

    @Test func bellShowsAWarningWhenLiveActivitiesAreDisabledOrTheStartFailed() async throws {
        let manager = makeManager()
        _ = try await manager.follow(matchId: "m1")
        _ = try await manager.follow(matchId: "m2")
        await manager.setLiveActivitiesEnabled(false)
        #expect(await manager.bellState(matchId: "m1") == .followingWithWarning)
        await manager.setLiveActivitiesEnabled(true)
        #expect(await manager.bellState(matchId: "m1") == .following)
        await manager.markStartFailed(matchId: "m2")
        #expect(await manager.bellState(matchId: "m2") == .followingWithWarning)
        await manager.markStarted(matchId: "m2")
        #expect(await manager.bellState(matchId: "m2") == .following)
        #expect(await manager.bellState(matchId: "m3") == .notFollowing)
    }

    @Test func remoteUnfollowIsLocalOnly() async throws {
        let manager = makeManager()
        _ = try await manager.follow(matchId: "m1")
        await manager.applyRemoteUnfollow(matchId: "m1")
        #expect(await manager.followedMatchIds == [])
        #expect(api.calls(.unfollow) == 0)
    }
}
