import Foundation
import Contracts
import LiveActivities

extension MatchOrchestrator.Candidate {
    /// A candidate for `device` as `LiveActivityStore` read it, with its match's decoded card and state.
    init(_ device: FollowerDevice, card: MatchCard, state: UnifiedDisplayState?,
         previous: (reason: MatchOrchestrator.Restart, attempts: Int, dayStart: Int, updatedAt: Date)?) {
        self.init(
            matchId: device.matchId, userId: device.userId, deviceId: device.deviceId, token: device.pushToStartToken,
            env: APNsEnvironment(rawValue: device.apnsEnvironment) ?? .production, card: card, state: state,
            stateSeq: device.stateSeq, previous: previous, channelId: device.channelId)
    }
}
