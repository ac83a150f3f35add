@testable import DeviceSimulator
import ClientCore
import Contracts
import Foundation
import SharedTestSupport
import Testing

/// Devices on ClientCore against a fake api, fed by the delivery intake from a fake mock-apns.
@Suite(.timeLimit(.minutes(3))) struct FleetTests {
    @Test func launchRegistersBothTokensAndFollows() async throws {
        let harness = await Harness(devices: 4)
        let calls = harness.backend.calls.withLock { $0 }
        for device in harness.fleet.devices {
            #expect(device.launchState == .ready)
            let last = calls.registrations.last { $0.deviceId == device.deviceId }
            #expect(last?.pushToStartToken == device.pushToStartToken && last?.pushToken == device.deviceToken)
            #expect(device.pushToStartToken.count == 160 && device.deviceToken.count == 64)
            #expect(calls.follows.contains { $0.deviceId == device.deviceId && $0.matchId == "m1" })
        }
        #expect(Set(harness.fleet.devices.map(\.userId)).count == 2)
    }

    @Test func pushToStartCreatesAnActivityAndPostsItsUpdateToken() async throws {
        let harness = await Harness(devices: 2)
        let device = harness.fleet.devices[1]
        let token = try await harness.start(device, Sample.state(updatedAt: 100))
        #expect(token.count == 160 && token.allSatisfy(\.isHexDigit))
        #expect(harness.fleet.directory.route(token) == TokenRoute(deviceIndex: 1, kind: .update))
        let snapshot = await device.snapshot()
        #expect(snapshot.activities.map(\.state) == ["active"] && snapshot.activities.first?.startedByPush == true)
        #expect(snapshot.startsReceived == 1 && snapshot.lastEvent == "start m1 @100")
        #expect(await harness.fleet.devices[0].snapshot().activities.isEmpty)
    }

    @Test("a channel device starts on the channel, reports it, subscribes at the mock and applies its broadcasts; a token device refuses a channel start")
    func channelDevicesStartOnTheChannelAndApplyBroadcasts() async throws {
        let harness = await Harness(devices: 3, channelShare: 2.0 / 3.0)
        #expect(harness.fleet.devices.map(\.supportsChannels) == [false, true, true], "⌊(i+1)·⅔⌋ > ⌊i·⅔⌋")
        let registrations = harness.backend.calls.withLock { $0.registrations }
        #expect(registrations.last { $0.deviceId == harness.fleet.devices[1].deviceId }?.osVersion == "18.2")
        #expect(registrations.last { $0.deviceId == harness.fleet.devices[1].deviceId }?.supportsBroadcastChannels == true)
        let start = LiveActivityPayload.matchStart(state: Sample.state(updatedAt: 100), timestamp: 100, channelId: "Q0hBTg==")
        let body = try start.jsonString()
        let (token, channel) = (harness.fleet.devices[0], harness.fleet.devices[1])
        harness.mock.deliver(token: token.pushToStartToken, payload: body)
        harness.mock.deliver(token: channel.pushToStartToken, payload: body)
        try await harness.intake.pollOnce()
        #expect(await token.snapshot().activities.isEmpty, "iOS 17 starts nothing on a channel")
        let activity = try #require(await channel.snapshot().activities.first)
        #expect(activity.channelId == "Q0hBTg==" && activity.token == nil && activity.state == "active")
        let backend = harness.backend
        #expect(await eventually { backend.tokens(deviceId: channel.deviceId).contains { $0.token == "channel:Q0hBTg==" } },
                "the channel activity is reported instead of a token")
        try await harness.intake.pollOnce()  // makes the pending subscription at the mock
        let subscription = try #require(harness.mock.subscriptions.withLock { $0 }.first)
        #expect(subscription.channelId == "Q0hBTg==" && harness.fleet.directory.route(subscription.subscriber)?.deviceIndex == 1)
        #expect(harness.fleet.directory.route(subscription.subscriber)?.kind == .channel)
        let copy = Sample.payload(.update, Sample.state(updatedAt: 150, score: "99/2"))
        harness.mock.deliverCopy(to: subscription.subscriber, channelId: "Q0hBTg==", broadcast: "b-1", payload: copy)
        try await harness.intake.pollOnce()
        let updated = try #require(await channel.snapshot().activities.first)
        #expect(updated.contentState.compactLeading.score == "99/2" && updated.timestamp == 150)
        let once = await channel.snapshot()
        #expect(once.channelCopiesReceived == 1 && once.repeatedChannelCopies == 0)
        harness.mock.deliverCopy(to: subscription.subscriber, channelId: "Q0hBTg==", broadcast: "b-1", payload: copy)
        try await harness.intake.pollOnce()
        let counted = await channel.snapshot()
        #expect(counted.channelCopiesReceived == 2 && counted.repeatedChannelCopies == 1, "a second copy of one broadcast is counted")
        let modes = (await channel.snapshot().mode, await token.snapshot().mode)
        #expect(modes == ("channel", "token"))
    }

    @Test func updatesApplyByTimestampAndEndKeepsTheFinalState() async throws {
        let harness = await Harness(devices: 1)
        let device = harness.fleet.devices[0]
        let token = try await harness.start(device, Sample.state(updatedAt: 100))
        harness.mock.deliver(token: token, payload: Sample.payload(.update, Sample.state(updatedAt: 120, score: "90/6")))
        harness.mock.deliver(token: token, payload: Sample.payload(.update, Sample.state(updatedAt: 110, score: "88/6")))
        try await harness.intake.pollOnce()
        var activity = try #require(await device.snapshot().activities.first)
        #expect(activity.contentState.compactLeading.score == "90/6" && activity.timestamp == 120)
        let final = Sample.state(updatedAt: 200, score: "181/4", phase: .ended, result: "India won by 6 wickets")
        harness.mock.deliver(token: token, payload: Sample.payload(.end, final))
        harness.mock.deliver(token: token, payload: Sample.payload(.update, Sample.state(updatedAt: 300, score: "999/9")))
        try await harness.intake.pollOnce()
        let snapshot = await device.snapshot()
        activity = try #require(snapshot.activities.first)
        #expect(activity.state == "ended" && activity.contentState == final)
        #expect(snapshot.updatesReceived == 3 && snapshot.endsReceived == 1 && snapshot.pushesReceived == 5)
        let status = await harness.fleet.status(unrouted: 0, cursor: 0)
        #expect(status.activitiesEnded == 1 && status.activitiesActive == 0 && status.endsReceived == 1)
    }

    @Test func deliveriesAreRoutedByTokenAndTheCursorAdvances() async throws {
        let harness = await Harness(devices: 3)
        let devices = harness.fleet.devices
        harness.mock.deliver(token: String(repeating: "ab", count: 80), payload: Sample.payload(.start, Sample.state()))
        harness.mock.deliver(token: devices[2].deviceToken, payload: #"{"aps":{"alert":{"title":"Wicket","body":"Out"}}}"#)
        harness.mock.deliver(token: devices[2].pushToStartToken.uppercased(), payload: Sample.payload(.start, Sample.state("m2")))
        harness.mock.deliver(token: devices[0].pushToStartToken, payload: Sample.payload(.update, Sample.state()))
        #expect(try await harness.intake.pollOnce() == 4)
        #expect(await harness.intake.unrouted == 1)
        #expect(await harness.intake.cursor == 4)
        #expect(try await harness.intake.pollOnce() == 0)
        let third = await devices[2].snapshot()
        #expect(third.otherReceived == 1 && third.activities.map(\.matchId) == ["m2"])
        // An update on a push-to-start token is not an activity update: iOS drops it.
        let first = await devices[0].snapshot()
        #expect(first.pushesReceived == 1 && first.activities.isEmpty)
    }

    @Test func aRestartedMockAPNsIsReadFromTheStart() async throws {
        let harness = await Harness(devices: 1)
        let device = harness.fleet.devices[0]
        let token = try await harness.start(device, Sample.state(updatedAt: 100))
        harness.mock.deliver(token: token, payload: Sample.payload(.update, Sample.state(updatedAt: 110)))
        try await harness.intake.pollOnce()
        #expect(await harness.intake.cursor == 2)
        #expect(try await harness.intake.pollOnce() == 0)
        #expect(await harness.intake.cursor == 2)
        harness.mock.restart()
        harness.mock.deliver(token: token, payload: Sample.payload(.update, Sample.state(updatedAt: 120, score: "99/1")))
        #expect(try await harness.intake.pollOnce() == 1)
        #expect(await harness.intake.cursor == 1)
        #expect(await device.snapshot().activities.first?.contentState.minimal.text == "99/1")
    }

    @Test func disabledLiveActivitiesRefuseThePushToStart() async throws {
        let harness = await Harness(devices: 1)
        let device = harness.fleet.devices[0]
        await device.setLiveActivitiesEnabled(false)
        harness.mock.deliver(token: device.pushToStartToken, payload: Sample.payload(.start, Sample.state()))
        try await harness.intake.pollOnce()
        let snapshot = await device.snapshot()
        #expect(snapshot.activities.isEmpty && snapshot.startsReceived == 1 && !snapshot.liveActivitiesEnabled)
        #expect(await device.service.bellState(matchId: "m1") == .followingWithWarning)
    }

    @Test func aSecondPushToStartReplacesTheActivityWithANewToken() async throws {
        let harness = await Harness(devices: 1)
        let device = harness.fleet.devices[0]
        let first = try await harness.start(device, Sample.state(updatedAt: 100))
        harness.mock.deliver(token: device.pushToStartToken, payload: Sample.payload(.start, Sample.state(updatedAt: 150)))
        try await harness.intake.pollOnce()
        let backend = harness.backend
        #expect(await eventually { backend.tokens(deviceId: device.deviceId).count == 2 })
        let second = try #require(backend.tokens(deviceId: device.deviceId).last?.token)
        #expect(second != first)
        let activity = try #require(await device.snapshot().activities.first)
        #expect(activity.state == "active" && activity.token == second && activity.timestamp == 150)
    }

    /// As a phone: a push-to-start naming another `ActivityAttributes` type starts nothing (issue 16).
    @Test func aStartForAnotherAttributesTypeStartsNothing() async throws {
        let harness = await Harness(devices: 1)
        let device = harness.fleet.devices[0]
        let wrong = try LiveActivityPayload.start(state: Sample.state(updatedAt: 100), timestamp: 100, attributesType: "MatchAttributes",
                                                  attributes: ["matchId": Sample.state(updatedAt: 100).matchId, "title": "x"],
                                                  alert: .init(title: "Live", body: "Match started")).jsonString()
        #expect(await device.receive(payload: wrong, kind: .pushToStart) == .startRefused)
        #expect(await device.snapshot().activities.isEmpty, "no activity started")
        #expect(await device.receive(payload: Sample.payload(.start, Sample.state(updatedAt: 100)), kind: .pushToStart) == .started)
    }

    @Test func aThousandDevicesShareOnePollingLoop() async throws {
        let started = ContinuousClock.now
        let harness = await Harness(devices: 1000)
        let launched = ContinuousClock.now
        #expect(harness.fleet.devices.allSatisfy { $0.launchState == .ready })
        for device in harness.fleet.devices {
            harness.mock.deliver(token: device.pushToStartToken, payload: Sample.payload(.start, Sample.state(updatedAt: 100)))
        }
        #expect(try await harness.intake.pollOnce() == 500)
        #expect(try await harness.intake.pollOnce() == 500)
        let backend = harness.backend
        #expect(await eventually { backend.calls.withLock { $0.tokens.count } == 1000 })
        for device in harness.fleet.devices {
            let token = try #require(backend.tokens(deviceId: device.deviceId).first?.token)
            harness.mock.deliver(token: token, payload: Sample.payload(.update, Sample.state(updatedAt: 110, score: "1/0")))
        }
        while try await harness.intake.pollOnce() > 0 {}
        let status = await harness.fleet.status(unrouted: 0, cursor: 0)
        #expect(status.activitiesActive == 1000 && status.updatesReceived == 1000 && status.devicesReady == 1000)
        print("1000 devices: launch \(launched - started), start+update \(ContinuousClock.now - launched)")
    }
}
