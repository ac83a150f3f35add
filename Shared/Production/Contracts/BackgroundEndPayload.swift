/// The background push that asks the app to end its Live Activity of a match: sent to the device's own push token
/// when the user unfollowed or dismissed on another device and this device's activity is on a broadcast channel (the
/// server cannot end one device's channel activity by push). `content-available: 1`, no alert; the app's
/// notification handler ends the activity locally.
///
///     {"aps":{"content-available":1},"sightscreen":{"matchId":"…","reason":"user_unfollow","type":"activity-end"}}
public enum BackgroundEndPayload {
    /// `sightscreen.type` of this push.
    public static let type = "activity-end"

    /// The exact JSON body (match and reason are ids: `InputRules` allows no quote or backslash in them).
    public static func json(matchId: String, reason: String) -> String {
        #"{"aps":{"content-available":1},"sightscreen":{"matchId":"\#(escaped(matchId))","reason":"\#(escaped(reason))","type":"\#(type)"}}"#
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
