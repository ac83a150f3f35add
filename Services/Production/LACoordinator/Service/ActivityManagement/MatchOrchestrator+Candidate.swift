import Foundation
import Contracts
import LiveActivities
import PushComposition

extension MatchOrchestrator.Candidate {
    /// A candidate for `device` as `LiveActivityStore` read it, with its match's decoded card and state.
    init(_ device: FollowerDevice, card: MatchCard, state: UnifiedDisplayState?,
         previous: (reason: MatchOrchestrator.Restart, attempts: Int, dayStart: Int, updatedAt: Date)?) {
        self.init(
            matchId: device.matchId, userId: device.userId, deviceId: device.deviceId, token: device.pushToStartToken,
            env: APNsEnvironment(rawValue: device.apnsEnvironment) ?? .production, card: card, state: state,
            stateSeq: device.stateSeq, previous: previous, channelId: device.channelId)
    }

    /// The device the candidate's pushes go to (its push-to-start token).
    var device: PushDevice { PushDevice(matchId: matchId, userId: userId, deviceId: deviceId, token: token, env: env) }

    /// The state its pushes show: the detector's, else one built from the card (`FallbackDisplayState`).
    func displayState(now: Date) -> UnifiedDisplayState {
        FallbackDisplayState.resolve(state: state, card: card, matchId: matchId, updatedAt: Int64(now.timeIntervalSince1970))
    }
}
