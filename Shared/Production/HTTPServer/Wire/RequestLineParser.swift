/// `method SP request-target SP HTTP-version` (RFC 9112 §3), strictly: single spaces, a token method, an
/// origin-form target of visible ASCII, `HTTP/DIGIT.DIGIT`.
enum RequestLineParser {
    /// The three parts of a valid request line.
    struct Line {
        var method: String
        var target: String
        var minorVersion: Int
    }

    static let maxMethodBytes = 32

    static func parse(_ line: UnsafeBufferPointer<UInt8>, maxTargetBytes: Int) -> Result<Line, HTTPRejection> {
        guard let firstSpace = line.firstIndex(of: .space) else {
            return .failure(malformed(line, "no space after the method"))
        }
        let method = line[..<firstSpace]
        guard !method.isEmpty, method.count <= maxMethodBytes, method.allSatisfy(\.isTokenCharacter) else {
            return .failure(malformed(line, "the method is not a token"))
        }
        let afterMethod = firstSpace + 1
        guard let secondSpace = line[afterMethod...].firstIndex(of: .space) else {
            if line.count - afterMethod > maxTargetBytes {
                return .failure(HTTPRejection(.targetTooLong, "request target longer than \(maxTargetBytes) bytes"))
            }
            return .failure(malformed(line, "no space after the target"))
        }
        let target = line[afterMethod..<secondSpace]
        guard !target.isEmpty else { return .failure(malformed(line, "an empty target")) }
        guard target.count <= maxTargetBytes else {
            return .failure(HTTPRejection(.targetTooLong, "request target of \(target.count) bytes; at most \(maxTargetBytes)"))
        }
        guard target.first == UInt8(ascii: "/") else {
            return .failure(HTTPRejection(.invalidTarget, "target \(HTTPRejection.quote(target)) is not origin-form (/path?query)"))
        }
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(HTTPRejection(.invalidTarget, "target \(HTTPRejection.quote(target)) holds a byte outside visible ASCII"))
        }
        let version = line[(secondSpace + 1)...]
        guard version.count == 8, version.starts(with: "HTTP/".utf8),
            let major = digit(version[version.startIndex + 5]), version[version.startIndex + 6] == UInt8(ascii: "."),
            let minor = digit(version[version.startIndex + 7])
        else {
            return .failure(malformed(line, "the version is not HTTP/<digit>.<digit>"))
        }
        guard major == 1 else {
            return .failure(HTTPRejection(.unsupportedVersion, "HTTP/\(major).\(minor) is not served; use HTTP/1.1"))
        }
        return .success(Line(
            method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self),
            minorVersion: minor))
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func malformed(_ line: UnsafeBufferPointer<UInt8>, _ why: String) -> HTTPRejection {
        HTTPRejection(.malformedRequestLine, "\(why): \(HTTPRejection.quote(line))")
    }
}

/// `field-name ":" OWS field-value OWS` (RFC 9112 §5), strictly.
enum FieldLineParser {
    static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result<(name: String, value: String), HTTPRejection> {
        guard let first = line.first else {
            return .failure(HTTPRejection(.malformedHeader, "empty header line"))
        }
        if first == .space || first == .tab {
            return .failure(HTTPRejection(.obsoleteLineFolding, "a header line starts with whitespace (obs-fold)"))
        }
        guard let colon = line.firstIndex(of: .colon) else {
            return .failure(HTTPRejection(.malformedHeader, "header line without a colon: \(HTTPRejection.quote(line, limit: 24))"))
        }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(\.isTokenCharacter) else {
            let why = name.last == .space || name.last == .tab ? "whitespace before the colon" : "a name that is not a token"
            return .failure(HTTPRejection(.malformedHeader, "header \(HTTPRejection.quote(name, limit: 24)): \(why)"))
        }
        var lower = line.index(after: colon)
        var upper = line.endIndex
        while lower < upper, line[lower] == .space || line[lower] == .tab { lower += 1 }
        while upper > lower, line[upper - 1] == .space || line[upper - 1] == .tab { upper -= 1 }
        let value = line[lower..<upper]
        let nameText = String(decoding: name, as: UTF8.self).lowercased()
        guard value.allSatisfy(\.isFieldValueCharacter) else {
            return .failure(HTTPRejection(.malformedHeader, "header \(nameText) holds a control byte"))
        }
        return .success((nameText, String(decoding: value, as: UTF8.self)))
    }
}
