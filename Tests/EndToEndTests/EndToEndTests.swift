import APNsMock
import Contracts
import PipelineTestSupport
import DevStack
import Foundation
import MatchDayCheck
import Postgres
import Runtime
import SharedTestSupport
import Synchronization
import Testing

/// The whole product on a real match: mock-apns, fake-sportmonks, the five services and device-sim
/// as real processes (DevStack, the demo's own plan) on the real PostgreSQL and Kafka of
/// scripts/stack. Six simulated devices (3 users × 2) follow the 2024 T20 World Cup final before it
/// goes live, a mixed fleet as in the demo: two thirds (devices 1, 2, 4, 5) are iOS 18 builds on the match's
/// broadcast channel, the rest on update tokens. The replay runs at 3 deliveries/s (about 2 minutes).
///
/// Users by fleet composition: `pair` has two channel devices, `mixedA` and `mixedB` one of each. After 30
/// deliveries: the pair unfollows on one channel device (the other ends by the background end push), mixedA
/// dismisses on its channel device (its token device gets the end push), mixedB's token is invalidated (re-started
/// with a new token) and the match's channel is deleted at mock-apns behind the system's back (created again and
/// mixedB's channel device re-started on it). mixedB's two devices, one per mode, end with the final state.
@Suite(.serialized) struct EndToEndTests {
    static let match = 1415755

    @Test(.timeLimit(.minutes(10))) func realMatchReachesEveryFollowerAndEveryHopBehaves() async throws {
        try PipelineEnvironment.requireServers()
        var options = DevStackOptions(
            binDirectory: try PipelineEnvironment.binDirectory(),
            logDirectory: PipelineEnvironment.stackDirectory.appendingPathComponent("logs/e2e"),
            materialDirectory: PipelineEnvironment.stackDirectory.appendingPathComponent("dev"),
            cricsheetDirectory: try PipelineEnvironment.cricsheetDirectory(), matchId: Self.match,
            idOffset: DevStackOptions.freshIdOffset(), speed: 3, devices: 6, channelShare: DevStackOptions.mixedFleetChannelShare,
            ports: try DevPorts.free(), kafkaBrokers: PipelineEnvironment.kafkaBrokers, databaseURL: PipelineEnvironment.databaseURL,
            pollIntervalMs: 500, orchestratorIntervalMs: 2000)
        // A real Prometheus with the shipped rules compressed 30x (as AlertFaultTests): no alert may fire in this match.
        options.prometheus = try DevPrometheus.locate(root: PipelineEnvironment.root, environment: ProcessInfo.processInfo.environment,
                                                      timeScale: 30)
        let stack = try DevStack(plan: DevStackPlan(options: options), logger: Logger(label: "e2e", minimumLevel: .warning))
        let outcome: Result<Void, any Error>
        do {
            try await run(stack)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        let logs = await stack.supervisor.statuses().map(\.logFile)
        var devicesNow = ""
        if case .failure = outcome, let devices = try? await DeviceSimClient(baseURL: stack.plan.deviceSimulatorURL).devices() {
            devicesNow = devices.map { device in
                "\(device.deviceId) \(device.userId) \(device.mode) follows=\(device.follows) pushes=\(device.pushesReceived) copies=\(device.channelCopiesReceived) "
                    + device.activities.map { "\($0.state)@\($0.timestamp) \($0.channelId ?? "token") \($0.contentState.lockScreen.headline)" }
                    .joined(separator: ",")
            }.joined(separator: "\n")
        }
        await stack.shutdown(grace: .seconds(10))
        if case .failure(let error) = outcome {
            Issue.record("\(error)\ndevices:\n\(devicesNow)\nlogs: \(logs.joined(separator: " "))")
        }
    }

    func run(_ stack: DevStack) async throws {
        let fixture = String(stack.options.fixtureId)
        let expected = try ExpectedFinal(stack.options.matchFile)
        let sim = DeviceSimClient(baseURL: stack.plan.deviceSimulatorURL)

        try await stack.prepare()
        try await stack.startServers()
        let monitoredFrom = ContinuousClock.now
        // After mock-apns started: it makes its certificate on a fresh machine.
        let mock = try MockAPNsControl(port: stack.options.ports.mockAPNs, caFile: stack.plan.material.certificateFile.path)
        try await stack.waitForScheduledMatch()
        try await stack.waitForBroadcastChannel()
        let channelId = try #require(try await Self.activeChannel(stack), "the poller opened the match's sandbox channel")
        try await stack.startDevices(followers: 3)
        let devices = try await sim.devices().sorted { $0.deviceId < $1.deviceId }
        try #require(devices.count == 6, "device-sim runs 6 devices")
        try #require(devices.filter(\.onChannels).count == 4, "two thirds of the fleet on channels: \(devices.map(\.mode))")
        let byUser = Dictionary(grouping: devices, by: \.userId)
        try #require(byUser.count == 3 && byUser.values.allSatisfy { $0.count == 2 }, "3 users with 2 devices each")
        #expect(devices.allSatisfy { $0.activity(fixture) == nil }, "no activity before the match is live")
        let pair = try #require(byUser.values.first { $0.allSatisfy(\.onChannels) }, "a user with two channel devices")
        let mixed = byUser.values.filter { !$0.allSatisfy(\.onChannels) }.sorted { $0[0].userId < $1[0].userId }
        try #require(mixed.count == 2 && mixed.allSatisfy { $0.filter(\.onChannels).count == 1 }, "two users with one device of each mode")
        let (mixedA, mixedB) = (mixed[0], mixed[1])

        // Followed before going live: every device gets a push-to-start once it is live, on the channel for the
        // iOS 18 builds.
        try? await Task.sleep(for: .seconds(2))
        try await stack.startMatch()
        try await stack.waitFor("a push-started activity on all 6 devices", timeout: .seconds(90)) {
            try await sim.devices().allSatisfy { $0.activity(fixture)?.state == "active" }
        }
        for device in try await sim.devices() {
            let activity = try #require(device.activity(fixture))
            if device.onChannels {
                #expect(activity.channelId == channelId && activity.token == nil, "\(device.deviceId) started on the channel")
            } else {
                #expect(activity.channelId == nil && activity.token != nil, "\(device.deviceId) started on a token")
            }
        }
        try await stack.waitFor("4 channel rows and 2 token rows", timeout: .seconds(60)) {
            let channelRows = try await stack.count("SELECT count(*) FROM live_activities WHERE match_id = $1 AND status = 'active' AND delivery = 'channel' AND channel_id IS NOT NULL AND update_token IS NULL")
            let tokenRows = try await stack.count("SELECT count(*) FROM live_activities WHERE match_id = $1 AND status = 'active' AND delivery = 'token' AND update_token IS NOT NULL")
            return channelRows == 4 && tokenRows == 2
        }

        // Let some overs be bowled, then act.
        try await stack.waitFor("30 deliveries replayed", timeout: .seconds(90)) {
            try await stack.replayStatus().deliveries >= 30
        }
        let unfollower = pair[0]
        let dismisser = try #require(mixedA.first { $0.onChannels })
        let mixedAToken = try #require(mixedA.first { !$0.onChannels })
        let invalidated = try #require(mixedB.first { !$0.onChannels })
        let relocated = try #require(mixedB.first { $0.onChannels })
        let oldToken = try await sim.device(invalidated.deviceId).activity(fixture)?.token
        let tokenInvalidSeen = LockedValue(false)
        let watcher = Task {
            let sql = "SELECT count(*) FROM live_activities WHERE match_id = $1 AND device_id = '\(invalidated.deviceId)' AND status = 'ended' AND end_reason = 'token_invalid'"
            while !Task.isCancelled {
                if (try? await stack.count(sql)) ?? 0 > 0 { tokenInvalidSeen.withLock { $0 = true }; return }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        try await sim.act("unfollow", device: unfollower.deviceId, match: fixture)
        try await sim.act("dismiss", device: dismisser.deviceId, match: fixture)
        try await sim.act("invalidate-token", device: invalidated.deviceId, match: fixture)
        try await mock.deleteChannel(channelId)

        // Unfollow on a channel device: it ends locally, the user's other channel device by the background push.
        try await stack.waitFor("the unfollowing user's two channel activities ended", timeout: .seconds(60)) {
            try await pair.asyncAll { ["ended", "dismissed"].contains(try await sim.device($0.deviceId).activity(fixture)?.state ?? "") }
        }
        try await stack.waitFor("the unfollow ended both rows user_unfollow", timeout: .seconds(60)) {
            try await stack.count("SELECT count(*) FROM live_activities WHERE match_id = $1 AND user_id = '\(unfollower.userId)' AND status = 'ended' AND end_reason = 'user_unfollow'") == 2
        }

        // Dismiss on a channel device: the user no longer follows, the row is ended/user_dismissed and the user's token
        // device got its end push.
        try await stack.waitFor("the dismissal unfollowed \(dismisser.userId)", timeout: .seconds(60)) {
            try await stack.count("SELECT count(*) FROM match_follows WHERE match_id = $1 AND user_id = '\(dismisser.userId)'") == 0
        }
        try await stack.waitFor("the dismissed row ended/user_dismissed", timeout: .seconds(60)) {
            try await stack.count("SELECT count(*) FROM live_activities WHERE match_id = $1 AND device_id = '\(dismisser.deviceId)' AND status = 'ended' AND end_reason = 'user_dismissed'") == 1
        }
        try await stack.waitFor("the dismissing user's token device ended by its end push", timeout: .seconds(60)) {
            try await ["ended", "dismissed"].contains(sim.device(mixedAToken.deviceId).activity(fixture)?.state ?? "")
        }
        let pushesAtEnd = try await sim.device(mixedAToken.deviceId).pushesReceived

        // Invalidated token: ended/token_invalid, then re-started by the orchestrator with a new token.
        try await stack.waitFor("the invalidated device re-started with a new token", timeout: .seconds(90)) {
            let activity = try await sim.device(invalidated.deviceId).activity(fixture)
            return activity?.state == "active" && activity?.token != nil && activity?.token != oldToken
        }
        // The deleted channel: the next broadcast is refused, the channel made again and its subscriber re-started on it.
        try await stack.waitFor("the relocated device re-started on a new channel", timeout: .seconds(90)) {
            let activity = try await sim.device(relocated.deviceId).activity(fixture)
            return activity?.state == "active" && activity?.channelId != nil && activity?.channelId != channelId
        }
        let newChannel = try #require(try await Self.activeChannel(stack))
        let relocatedChannel = try await sim.device(relocated.deviceId).activity(fixture)?.channelId
        #expect(newChannel != channelId && relocatedChannel == newChannel)
        #expect(try await stack.count("SELECT count(*) FROM broadcast_channels WHERE match_id = $1 AND apns_env = 'sandbox' AND generation >= 2") == 1,
                "the channel row moved to a new generation")
        let coordinatorMetrics = try await DevHTTP().get(stack.plan.serviceURL("la-coordinator")! + "/metrics").text
        // The overload rule reads apns-sender's commits in its own group: no held plain update waited for the 30 s bound.
        let held = PrometheusText.sum(coordinatorMetrics, metric: "la_update_hold_seconds_count", matching: [:])
        #expect(PrometheusText.sum(coordinatorMetrics, metric: "la_update_hold_seconds_bucket", matching: ["le": "15"]) == held,
                "\(held) held updates, all released within 15 s")
        watcher.cancel()
        #expect(tokenInvalidSeen.withLock { $0 }
                || PrometheusText.sum(coordinatorMetrics, metric: "la_rows_ended_total", matching: ["reason": "token_invalid"]) >= 1,
                "the invalidated activity became ended/token_invalid")
        // The re-starts came from the orchestrator (la-coordinator's Live Activity management): the invalidated token and the lost channel. (The 6 first starts
        // are not all its own: on a slow machine a device whose push-to-start token arrives after the match went live
        // is started by the api instead; every device's start is checked above through device-sim.)
        #expect(PrometheusText.sum(coordinatorMetrics, metric: "orchestrator_start_jobs_total", matching: ["reason": "token_invalid"]) >= 2,
                "at least 2 re-starts: the invalidated token and the deleted channel")

        // The match ends: both of mixedB's devices, one per mode, show the final state.
        try await stack.waitFor("the replay finished", timeout: .seconds(240)) { try await stack.replayStatus().finished }
        let followers = mixedB
        let finalState = LockedValue<UnifiedDisplayState?>(nil)
        try await stack.waitFor("the final state on every remaining follower", timeout: .seconds(120)) {
            guard let state = try await stack.finalDisplayState(fixture) else { return false }
            finalState.withLock { $0 = state }
            return try await followers.asyncAll { try await sim.device($0.deviceId).activity(fixture)?.contentState == state }
        }
        let final = try #require(finalState.withLock { $0 })
        #expect(final.resultLine == expected.result, "result line \(final.resultLine ?? "nil") vs Cricsheet \(expected.result)")
        #expect(final.lockScreen.headline.contains(expected.innings.last!),
                "headline \(final.lockScreen.headline) shows the final score \(expected.innings.last!)")
        for device in followers {
            let activity = try #require(try await sim.device(device.deviceId).activity(fixture))
            #expect(activity.contentState == final, "\(device.deviceId) shows the final state")
            #expect(activity.state == "ended", "\(device.deviceId)'s activity ended with the match (\(activity.state))")
        }

        // The delivery record (what support reads) agrees with what every device received: per device, the pushes APNs
        // accepted on its own tokens (starts, updates, ends, background ends) are the pushes it got, broadcast copies aside
        // (those are the channel's row). Waited for: the recorder folds behind the sends.
        let agreement = LockedValue<[String]>([])
        try? await stack.waitFor("the delivery record agrees with every device", timeout: .seconds(120)) {
            var mismatches: [String] = []
            for device in try await sim.devices() {
                let recorded = try await stack.count(
                    "SELECT coalesce(sum(accepted), 0)::bigint FROM push_deliveries WHERE match_id = $1 AND user_id = '\(device.userId)' AND device_id = '\(device.deviceId)'")
                let received = device.pushesReceived - device.channelCopiesReceived
                if recorded != received { mismatches.append("\(device.deviceId): record \(recorded) accepted, device got \(received)") }
            }
            agreement.withLock { $0 = mismatches }
            return mismatches.isEmpty
        }
        #expect(agreement.withLock { $0 }.isEmpty, "\(agreement.withLock { $0 })")
        #expect(try await stack.count("SELECT coalesce(sum(accepted), 0)::bigint FROM push_deliveries WHERE match_id = $1 AND user_id = ''") > 0,
                "the channel's broadcasts are recorded on its row")
        // Support's view from the operator CLI: the invalidated device's refusal and re-start, its activity ended by the match.
        let cli = try await ChildProcess.run(stack.options.binDirectory.appendingPathComponent("sightscreen"),
                                             ["device", invalidated.userId, invalidated.deviceId, "--json"],
                                             environment: ["DATABASE_URL": stack.options.databaseURL])
        #expect(cli.status == 0, "\(String(decoding: cli.output, as: UTF8.self))")
        let support = String(decoding: cli.output, as: UTF8.self)
        #expect(support.contains("\"token_refused\"") && support.contains("\"restarted\"") && support.contains("\"match_end\""), "\(support)")

        // One copy of each broadcast on every channel device, and no per-token update: every copy mock-apns made
        // reached exactly one device once, and every update or end a channel device applied was a copy.
        let counters = try await mock.counters()
        #expect(counters.broadcastsAccepted > 0 && counters.repeatedBroadcasts == 0, "broadcasts sent once each: \(counters)")
        try await stack.waitFor("device-sim holds every copy mock-apns made", timeout: .seconds(30)) {
            let made = try await mock.counters().broadcastCopies
            return try await sim.devices().reduce(0) { $0 + $1.channelCopiesReceived } == made
        }
        for device in try await sim.devices() where device.onChannels {
            #expect(device.channelCopiesReceived > 0 && device.repeatedChannelCopies == 0,
                    "\(device.deviceId): \(device.channelCopiesReceived) copies, \(device.repeatedChannelCopies) repeated")
            #expect(device.updatesReceived + device.endsReceived == device.channelCopiesReceived,
                    "\(device.deviceId) got no per-token update (\(device.updatesReceived) updates + \(device.endsReceived) ends, \(device.channelCopiesReceived) copies)")
        }

        // Issue 42's checker from APNs' side alone (every push mock-apns accepted or refused, per token in answer order):
        // no device was sent an older state after a newer one, nothing made after the invalidated token's refusal went to
        // it, and no payload reached a token twice.
        let accepted = try JSONDecoder().decode([MockAPNsDelivery].self, from: Data(try await mock.send("GET", "/mock/deliveries").body))
        let refused = try JSONDecoder().decode([MockAPNsRefusal].self, from: Data(try await mock.send("GET", "/mock/refusals").body))
        let checked = PushLogRules().check(deliveries: accepted, refusals: refused)
        #expect(checked.violations.isEmpty, "\(checked.violations.map(\.description).joined(separator: "\n"))")
        #expect(checked.refused > 0 && checked.accepted == accepted.count, "the invalidated token's refusal is in the log: \(checked)")

        // The dismissing user's token device: nothing after its end push.
        let now = try await sim.device(mixedAToken.deviceId)
        #expect(now.pushesReceived == pushesAtEnd, "\(mixedAToken.deviceId) got nothing after its end push")

        // The preview page, rendered by headless Chromium, shows the final score and result on a channel device.
        let url = "\(stack.plan.deviceSimulatorURL)/preview?device=\(relocated.deviceId)&match=\(fixture)"
        let dom = try await HeadlessChromium.dom(url)
        #expect(dom.contains("id=\"lock-headline\""), "the preview has the Lock Screen headline")
        #expect(dom.contains(expected.innings.last!), "the rendered preview shows \(expected.innings.last!)")
        #expect(dom.contains(expected.result), "the rendered preview shows \(expected.result)")
        // The fleet page: every device's card, the followers ended with the result, the unfollowed ones badged.
        let fleet = try await HeadlessChromium.dom("\(stack.plan.deviceSimulatorURL)/preview/all?match=\(fixture)")
        for device in devices { #expect(fleet.contains("id=\"device-\(device.deviceId)\""), "\(device.deviceId) on the fleet page") }
        #expect(fleet.contains("id=\"timeline-\(relocated.deviceId)\"") && fleet.contains("<td>channel</td>"), "a channel device's timeline")

        // Issue 40: a whole match with its unfollows, dismissals, a refused token and a lost channel is a healthy match
        // to the operator — no alert of deploy/prometheus/alerts.yml fired (time-compressed 30x), and every rule evaluated.
        let fired = try await stack.prometheus.alertsFired(within: ContinuousClock.now - monitoredFrom)
        #expect(fired.isEmpty, "alerts fired during a healthy match: \(fired)")
        #expect(try await stack.prometheus.ruleErrors().isEmpty)
    }

    /// The match's active sandbox channel id, if any.
    static func activeChannel(_ stack: DevStack) async throws -> String? {
        let rows = try await stack.postgres.query(
            "SELECT channel_id FROM broadcast_channels WHERE match_id = $1 AND apns_env = 'sandbox' AND state = 'active'",
            [String(stack.options.fixtureId)])
        return try rows.first?.decode(0, as: String.self)
    }
}

extension Array {
    func asyncAll(_ predicate: (Element) async throws -> Bool) async throws -> Bool {
        for element in self where !(try await predicate(element)) { return false }
        return true
    }
}
