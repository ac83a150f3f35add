import Contracts
import PipelineTestSupport
import DevStack
import Foundation
import Postgres
import Runtime
import Synchronization
import Testing

/// The whole product on a real match: mock-apns, fake-sportmonks, the five services and device-sim
/// as real processes (DevStack, the demo's own plan) on the real PostgreSQL and Kafka of
/// scripts/stack. Six simulated devices (3 users × 2) follow the 2024 T20 World Cup final before it
/// goes live; the replay runs at 3 deliveries/s (about 2 minutes).
@Suite(.serialized) struct EndToEndTests {
    static let match = 1415755

    @Test(.timeLimit(.minutes(10))) func realMatchReachesEveryFollowerAndEveryHopBehaves() async throws {
        try PipelineEnvironment.requireServers()
        let options = DevStackOptions(
            binDirectory: try PipelineEnvironment.binDirectory(),
            logDirectory: PipelineEnvironment.stackDirectory.appendingPathComponent("logs/e2e"),
            materialDirectory: PipelineEnvironment.stackDirectory.appendingPathComponent("dev"),
            cricsheetDirectory: try PipelineEnvironment.cricsheetDirectory(), matchId: Self.match,
            idOffset: DevStackOptions.freshIdOffset(), speed: 3, devices: 6, ports: try DevPorts.free(),
            kafkaBrokers: PipelineEnvironment.kafkaBrokers, databaseURL: PipelineEnvironment.databaseURL,
            pollIntervalMs: 500, orchestratorIntervalMs: 2000)
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
                "\(device.deviceId) \(device.userId) follows=\(device.follows) pushes=\(device.pushesReceived) "
                    + device.activities.map { "\($0.state)@\($0.timestamp) \($0.contentState.lockScreen.headline)" }.joined(separator: ",")
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
        try await stack.waitForScheduledMatch()
        try await stack.startDevices(followers: 3)
        let devices = try await sim.devices().sorted { $0.deviceId < $1.deviceId }
        try #require(devices.count == 6, "device-sim runs 6 devices")
        let byUser = Dictionary(grouping: devices, by: \.userId)
        try #require(byUser.count == 3 && byUser.values.allSatisfy { $0.count == 2 }, "3 users with 2 devices each")
        #expect(devices.allSatisfy { $0.activity(fixture) == nil }, "no activity before the match is live")
        let users = byUser.keys.sorted()

        // Followed before going live: every device gets a push-to-start once it is live.
        try? await Task.sleep(for: .seconds(2))
        try await stack.startMatch()
        try await stack.waitFor("a push-started activity on all 6 devices", timeout: .seconds(90)) {
            try await sim.devices().allSatisfy { $0.activity(fixture)?.state == "active" }
        }

        // Let some overs be bowled, then act: unfollow (user 0), dismiss (user 1), invalidate a token (user 2).
        try await stack.waitFor("30 deliveries replayed", timeout: .seconds(90)) {
            try await stack.replayStatus().deliveries >= 30
        }
        let unfollower = byUser[users[0]]![0]
        let dismisser = byUser[users[1]]![0]
        let invalidated = byUser[users[2]]![0]
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

        // Unfollow: both of user 0's devices get an end push, then nothing more.
        try await stack.waitFor("the unfollowed devices' activities ended", timeout: .seconds(60)) {
            try await byUser[users[0]]!.asyncAll { ["ended", "dismissed"].contains(try await sim.device($0.deviceId).activity(fixture)?.state ?? "") }
        }
        var pushesAtEnd: [String: Int] = [:]
        for device in byUser[users[0]]! { pushesAtEnd[device.deviceId] = try await sim.device(device.deviceId).pushesReceived }

        // Dismiss: the user no longer follows; the dismissed activity is ended/user_dismissed.
        try await stack.waitFor("the dismissal unfollowed \(users[1])", timeout: .seconds(60)) {
            try await stack.count("SELECT count(*) FROM match_follows WHERE match_id = $1 AND user_id = '\(users[1])'") == 0
        }
        try await stack.waitFor("the dismissed row ended/user_dismissed", timeout: .seconds(60)) {
            try await stack.count("SELECT count(*) FROM live_activities WHERE match_id = $1 AND device_id = '\(dismisser.deviceId)' AND status = 'ended' AND end_reason = 'user_dismissed'") == 1
        }

        // Invalidated token: ended/token_invalid, then re-started by the orchestrator with a new token.
        try await stack.waitFor("the invalidated device re-started with a new token", timeout: .seconds(90)) {
            let activity = try await sim.device(invalidated.deviceId).activity(fixture)
            return activity?.state == "active" && activity?.token != nil && activity?.token != oldToken
        }
        let coordinatorMetrics = try await DevHTTP().get(stack.plan.serviceURL("la-coordinator")! + "/metrics").text
        let restarts = try await DevHTTP().get(stack.plan.serviceURL("poller")! + "/metrics").text
        watcher.cancel()
        #expect(tokenInvalidSeen.withLock { $0 }
                || PrometheusText.sum(coordinatorMetrics, metric: "la_rows_ended_total", matching: ["reason": "token_invalid"]) >= 1,
                "the invalidated activity became ended/token_invalid")
        // The re-start came from the orchestrator. (The 6 first starts are not all its own: on a slow
        // machine a device whose push-to-start token arrives after the match went live is started by
        // the api instead — a one-core run saw 5 orchestrator starts; every device's start is checked
        // above through device-sim.)
        #expect(PrometheusText.sum(restarts, metric: "orchestrator_start_jobs_total", matching: ["reason": "token_invalid"]) >= 1,
                "at least 1 re-start after the token was invalidated")

        // The match ends: every remaining follower shows the final state.
        try await stack.waitFor("the replay finished", timeout: .seconds(240)) { try await stack.replayStatus().finished }
        let followers = byUser[users[2]]!
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
        }

        // Unfollowed devices: nothing after their end push.
        for device in byUser[users[0]]! {
            let now = try await sim.device(device.deviceId)
            #expect(now.pushesReceived == pushesAtEnd[device.deviceId], "\(device.deviceId) got nothing after its end push")
            #expect(["ended", "dismissed"].contains(now.activity(fixture)?.state ?? ""))
        }

        // The preview page, rendered by headless Chromium, shows the final score and result.
        let url = "\(stack.plan.deviceSimulatorURL)/preview?device=\(followers[0].deviceId)&match=\(fixture)"
        let dom = try await DeviceSimClient.renderedDOM(url)
        #expect(dom.contains("id=\"lock-headline\""), "the preview has the Lock Screen headline")
        #expect(dom.contains(expected.innings.last!), "the rendered preview shows \(expected.innings.last!)")
        #expect(dom.contains(expected.result), "the rendered preview shows \(expected.result)")
    }
}

extension Array {
    func asyncAll(_ predicate: (Element) async throws -> Bool) async throws -> Bool {
        for element in self where !(try await predicate(element)) { return false }
        return true
    }
}
