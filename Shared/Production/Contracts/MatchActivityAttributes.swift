/// The one Live Activity type of the app, as the backend addresses it. Push-to-start bodies name
/// the type (`attributes-type`) and carry its static attributes (`attributes`); iOS starts an
/// activity only when both match a type the app declares, so this is the contract with the iOS team.
///
/// The app must declare exactly:
///
/// ```swift
/// import ActivityKit
///
/// struct MatchActivityAttributes: ActivityAttributes {
///     typealias ContentState = UnifiedDisplayState   // decoded with default JSONDecoder strategies
///     var matchId: String
///     var title: String
/// }
/// ```
///
/// Both start paths (the api on a follow, the orchestrator when a match goes live) build their body
/// with ``LiveActivityPayload/matchStart(state:timestamp:)``; updates and ends carry only the
/// content state.
public enum MatchActivityAttributes {
    /// `attributes-type`: the Swift name of the app's `ActivityAttributes` struct.
    public static let typeName = "MatchActivityAttributes"

    /// The static attributes of a match's activity (`matchId`, `title`), fixed for its lifetime.
    public static func attributes(matchId: String, title: String) -> [String: String] {
        ["matchId": matchId, "title": title]
    }

    /// The attribute keys, in the order the app declares them.
    public static let attributeKeys = ["matchId", "title"]
}

extension LiveActivityPayload {
    /// The push-to-start body of a match (the one builder, for the api and the orchestrator):
    /// `event: start`, `attributes-type` ``MatchActivityAttributes/typeName``, attributes from the
    /// state's match id and title, the alert iOS requires (title and status text), stale after 30 min (after
    /// `defaultBreakStaleAfter` when it starts during a stoppage, like the updates then). With `channelId` (a
    /// channel-capable device of a match with a broadcast channel) it carries `input-push-channel`: the activity
    /// starts subscribed to the channel.
    public static func matchStart(state: UnifiedDisplayState, timestamp: Int64, channelId: String? = nil) -> LiveActivityPayload {
        var payload = start(state: state, timestamp: timestamp, attributesType: MatchActivityAttributes.typeName,
                            attributes: MatchActivityAttributes.attributes(matchId: state.matchId, title: state.title),
                            alert: PushAlert(title: state.title, body: state.statusText),
                            staleAfter: state.matchDisplayState == .interrupted ? defaultBreakStaleAfter : defaultStaleAfter)
        payload.inputPushChannel = channelId
        return payload
    }
}
