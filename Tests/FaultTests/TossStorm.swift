import DevStack
import MatchDayCheck

/// Issue 42's toss storm in small: a cohort of users who did not follow the final before it started follow it all at
/// once as it goes live, through device-sim and the real api. Each must get its push-to-start within 30 s: the
/// checker's `StartAfterFollowRule` reads the logged follows. The cohort is every fourth user from the first (the
/// audience of the last match uses the second and third).
struct TossStorm: Sendable {
    /// One device of each cohort user (a follow reaches every device of the user), and the user's push-to-start tokens.
    struct Member: Sendable {
        var device: String
        var pushToStartTokens: [String]
    }

    let simURL: String
    let match: String
    let cohort: [Member]

    init(simURL: String, match: String, devices: [Audience.Device]) {
        self.simURL = simURL
        self.match = match
        let sorted = devices.sorted { $0.deviceId < $1.deviceId }
        let users = sorted.map(\.userId).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        cohort = users.enumerated().filter { $0.offset % 4 == 0 }.compactMap { _, user in
            let own = sorted.filter { $0.userId == user }
            return own.first.map { Member(device: $0.deviceId, pushToStartTokens: own.map(\.pushToStartToken)) }
        }
    }

    /// Before the start: the cohort's users unfollow the match (device-sim follows every match at launch).
    func leave(stack: DevStack) async throws {
        for member in cohort {
            _ = try await Audience.act(.unfollow, device: member.device, match: match, simURL: simURL, stack: stack,
                                       pushToStartTokens: member.pushToStartTokens)
        }
    }

    /// As the match starts: every cohort user follows at once; the follows, as the record logs them.
    func follow(stack: DevStack) async throws -> [MatchDayAction] {
        try await withThrowingTaskGroup(of: MatchDayAction.self) { group in
            for member in cohort {
                group.addTask {
                    try await Audience.act(.follow, device: member.device, match: match, simURL: simURL, stack: stack,
                                           pushToStartTokens: member.pushToStartTokens)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}
