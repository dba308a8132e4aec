import FlowEmulatorData
import Foundation

/// What a verified SAML response says: the facts of its one signed assertion.
struct VerifiedSAMLResponse: Sendable, Equatable {
    /// The assertion's `Issuer` (the identity provider's entity ID).
    var issuer: String
    /// The subject's `NameID`.
    var nameID: String
    /// Every `Audience` of the assertion's `AudienceRestriction`s.
    var audiences: [String]
    /// The request the response answers: the bearer `SubjectConfirmationData`'s `InResponseTo` (signed), else the
    /// `Response`'s; `nil` for an unsolicited response.
    var inResponseTo: String?
    /// The `SessionIndex` of the first `AuthnStatement`.
    var sessionIndex: String?
    /// The `AttributeStatement`s' attributes by `Name`, each with its values' text in order.
    var attributes: [String: [String]]
}

/// Verifies a SAML 2.0 `Response` (HTTP-POST binding) as a service provider: one assertion, signed (enveloped
/// XML-DSig, RSA-SHA256, exclusive canonicalization) with the pinned certificate, for this service provider, now.
enum SAMLResponseVerifier {
    static let protocolNamespace = "urn:oasis:names:tc:SAML:2.0:protocol"
    static let assertionNamespace = "urn:oasis:names:tc:SAML:2.0:assertion"
    static let success = "urn:oasis:names:tc:SAML:2.0:status:Success"
    static let bearer = "urn:oasis:names:tc:SAML:2.0:cm:bearer"
    /// Longer posted values are refused before decoding (a SAML response is a few kilobytes).
    static let maximumLength = 1 << 20

    /// Verifies the base64 `response` (the `SAMLResponse` form field of the HTTP-POST binding) and returns what its
    /// assertion says.
    ///
    /// In order: the XML is strict (no DOCTYPE, no entities but the predefined ones); the root is a
    /// `samlp:Response` with status Success; the document holds exactly one `saml:Assertion`, a child of the
    /// response; its signature verifies with `trust` (see ``EnvelopedSignature``); the response's `Destination`,
    /// when present, is `destination`, and its `InResponseTo`, when present, `expectedRequestID`; the assertion's
    /// `Issuer` (and the response's, when present) is `expectedIssuer` when one is given; exactly one bearer
    /// `SubjectConfirmation`, whose data's `Recipient` is `destination`, whose `NotOnOrAfter` has not passed and
    /// whose `InResponseTo` is `expectedRequestID` when one is given; `Conditions` whose `NotBefore` and
    /// `NotOnOrAfter` hold `now` (each with `clockSkew` of leeway) and whose every `AudienceRestriction` names
    /// `audience`.
    /// - Throws: ``SAMLRefusal`` naming the first check that failed.
    static func verify(
        base64 response: String, trusting trust: SAMLTrust, issuer expectedIssuer: String?, audience: String,
        destination: String, inResponseTo expectedRequestID: String?, now: Date, clockSkew: TimeInterval = 60
    ) throws(SAMLRefusal) -> VerifiedSAMLResponse {
        guard response.utf8.count <= maximumLength else {
            throw SAMLRefusal("The SAML response is longer than \(maximumLength) characters.")
        }
        guard let bytes = EnvelopedSignature.decodeBase64(response) else {
            throw SAMLRefusal("The SAML response is not base64.")
        }
        let tree: XMLTree
        do {
            tree = try StrictXMLParser.parse(bytes)
        } catch {
            throw SAMLRefusal("The SAML response is not accepted XML (at \(error.mark)): \(error.problem).")
        }
        let root = tree.root
        guard root.isNamed("Response", in: protocolNamespace) else {
            throw SAMLRefusal("The SAML response is not a samlp:Response.")
        }
        guard root.attribute("Version") == "2.0" else { throw SAMLRefusal("The SAML response is not version 2.0.") }
        try checkStatus(of: root)

        let all = tree.elementsWithPaths
        guard !all.contains(where: { $0.element.isNamed("EncryptedAssertion", in: assertionNamespace) }) else {
            throw SAMLRefusal("The SAML response holds an encrypted assertion; they are not supported.")
        }
        let assertions = all.filter { $0.element.isNamed("Assertion", in: assertionNamespace) }
        guard assertions.count == 1, let (path, assertion) = assertions.first else {
            throw SAMLRefusal("The SAML response holds \(assertions.count) assertions; exactly one is accepted.")
        }
        guard path.count == 1 else { throw SAMLRefusal("The assertion is not a child of the samlp:Response.") }
        try EnvelopedSignature.verify(assertion, at: path, in: tree, trusting: trust)

        // The response's own attributes are not signed: they can only refuse.
        if let given = root.attribute("Destination"), given != destination {
            throw SAMLRefusal("The SAML response's Destination is not this service provider's \(destination).")
        }
        if let expectedRequestID, let given = root.attribute("InResponseTo"), given != expectedRequestID {
            throw SAMLRefusal("The SAML response's InResponseTo is not the ID of the request this login sent.")
        }

        // Everything below is read from the verified assertion.
        guard assertion.attribute("Version") == "2.0" else { throw SAMLRefusal("The assertion is not version 2.0.") }
        let issuer = try value(of: only("Issuer", in: assertion, "The assertion"), "The assertion's Issuer")
        if let expectedIssuer {
            let responseIssuer = root.elements("Issuer", in: assertionNamespace).first.map { $0.text.xmlTrimmed }
            guard issuer == expectedIssuer, responseIssuer ?? expectedIssuer == expectedIssuer else {
                throw SAMLRefusal("The assertion's Issuer is not the expected identity provider \(expectedIssuer).")
            }
        }
        let subject = try only("Subject", in: assertion, "The assertion")
        let nameID = try value(of: only("NameID", in: subject, "The assertion's Subject"), "The assertion's NameID")
        let inResponseTo = try checkConfirmation(
            of: subject, destination: destination, expectedRequestID: expectedRequestID, now: now, skew: clockSkew)
        let audiences = try checkConditions(of: assertion, audience: audience, now: now, skew: clockSkew)

        let sessionIndex = assertion.elements("AuthnStatement", in: assertionNamespace).first?
            .attribute("SessionIndex")
        var attributes: [String: [String]] = [:]
        for statement in assertion.elements("AttributeStatement", in: assertionNamespace) {
            for attribute in statement.elements("Attribute", in: assertionNamespace) {
                guard let name = attribute.attribute("Name") else {
                    throw SAMLRefusal("An attribute of the assertion has no Name.")
                }
                attributes[name, default: []] += attribute.elements("AttributeValue", in: assertionNamespace).map {
                    $0.text.xmlTrimmed
                }
            }
        }
        return VerifiedSAMLResponse(
            issuer: issuer, nameID: nameID, audiences: audiences,
            inResponseTo: inResponseTo ?? root.attribute("InResponseTo"), sessionIndex: sessionIndex,
            attributes: attributes)
    }

    /// Refuses a response whose top-level status is not Success, naming a standard status code.
    private static func checkStatus(of response: XMLTree.Element) throws(SAMLRefusal) {
        let code = response.elements("Status", in: protocolNamespace).first?
            .elements("StatusCode", in: protocolNamespace).first?.attribute("Value")
        guard code != success else { return }
        let prefix = "urn:oasis:names:tc:SAML:2.0:status:"
        let name = code.flatMap { code -> String? in
            guard code.hasPrefix(prefix) else { return nil }
            let name = code.dropFirst(prefix.count)
            return name.count <= 40 && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic && $0.isASCII }
                ? String(name) : nil
        }
        throw SAMLRefusal(
            "The identity provider's status is not Success\(name.map { " but \($0)" } ?? ""): the login failed there.")
    }

    /// Checks the subject's one bearer confirmation; returns its `InResponseTo`.
    private static func checkConfirmation(
        of subject: XMLTree.Element, destination: String, expectedRequestID: String?, now: Date, skew: TimeInterval
    ) throws(SAMLRefusal) -> String? {
        let bearers = subject.elements("SubjectConfirmation", in: assertionNamespace).filter {
            $0.attribute("Method") == bearer
        }
        guard bearers.count == 1 else {
            throw SAMLRefusal(
                "The assertion's Subject has \(bearers.count) bearer SubjectConfirmations; exactly one is accepted.")
        }
        let data = try only("SubjectConfirmationData", in: bearers[0], "The bearer SubjectConfirmation")
        guard data.attribute("Recipient") == destination else {
            throw SAMLRefusal(
                "The bearer SubjectConfirmationData's Recipient is not this service provider's \(destination).")
        }
        guard let notOnOrAfter = try date(data, "NotOnOrAfter", "The bearer SubjectConfirmationData") else {
            throw SAMLRefusal("The bearer SubjectConfirmationData has no NotOnOrAfter.")
        }
        guard now < notOnOrAfter.addingTimeInterval(skew) else {
            throw SAMLRefusal(
                "The assertion has expired: its bearer SubjectConfirmationData's NotOnOrAfter was "
                    + "\(SAMLDateTime.format(notOnOrAfter)) (with \(Int(skew)) s of clock skew allowed).")
        }
        if let notBefore = try date(data, "NotBefore", "The bearer SubjectConfirmationData"),
            now.addingTimeInterval(skew) < notBefore
        {
            throw SAMLRefusal(
                "The assertion is not yet valid: its bearer SubjectConfirmationData's NotBefore is "
                    + "\(SAMLDateTime.format(notBefore)) (with \(Int(skew)) s of clock skew allowed).")
        }
        let inResponseTo = data.attribute("InResponseTo")
        if let expectedRequestID, inResponseTo != expectedRequestID {
            throw SAMLRefusal(
                "The bearer SubjectConfirmationData's InResponseTo is not the ID of the request this login sent.")
        }
        return inResponseTo
    }

    /// Checks the assertion's conditions (validity window, audience); returns every audience named.
    private static func checkConditions(
        of assertion: XMLTree.Element, audience: String, now: Date, skew: TimeInterval
    ) throws(SAMLRefusal) -> [String] {
        let conditions = try only("Conditions", in: assertion, "The assertion")
        if let notBefore = try date(conditions, "NotBefore", "The assertion's Conditions"),
            now.addingTimeInterval(skew) < notBefore
        {
            throw SAMLRefusal(
                "The assertion is not yet valid: its Conditions' NotBefore is \(SAMLDateTime.format(notBefore)) "
                    + "(with \(Int(skew)) s of clock skew allowed).")
        }
        if let notOnOrAfter = try date(conditions, "NotOnOrAfter", "The assertion's Conditions"),
            now >= notOnOrAfter.addingTimeInterval(skew)
        {
            throw SAMLRefusal(
                "The assertion has expired: its Conditions' NotOnOrAfter was \(SAMLDateTime.format(notOnOrAfter)) "
                    + "(with \(Int(skew)) s of clock skew allowed).")
        }
        let restrictions = conditions.elements("AudienceRestriction", in: assertionNamespace)
        let audiences = restrictions.map { $0.elements("Audience", in: assertionNamespace).map(\.text.xmlTrimmed) }
        guard !restrictions.isEmpty, audiences.allSatisfy({ $0.contains(audience) }) else {
            throw SAMLRefusal("The assertion's Audience is not this service provider's \(audience).")
        }
        return audiences.flatMap { $0 }
    }

    /// The single child `localName` (SAML assertion namespace) of `parent`, described as `owner` in a refusal.
    private static func only(
        _ localName: String, in parent: XMLTree.Element, _ owner: String
    ) throws(SAMLRefusal) -> XMLTree.Element {
        let found = parent.elements(localName, in: assertionNamespace)
        guard found.count == 1 else {
            throw SAMLRefusal("\(owner) has \(found.count) \(localName) elements; exactly one is accepted.")
        }
        return found[0]
    }

    /// The text of an element that must hold non-empty text only, trimmed.
    private static func value(of element: XMLTree.Element, _ what: String) throws(SAMLRefusal) -> String {
        let text = element.text.xmlTrimmed
        guard !element.hasElementChildren, !text.isEmpty else {
            throw SAMLRefusal("\(what) must hold text only, and some.")
        }
        return text
    }

    /// The date in attribute `name` of `element`; `nil` when absent.
    private static func date(
        _ element: XMLTree.Element, _ name: String, _ owner: String
    ) throws(SAMLRefusal) -> Date? {
        guard let text = element.attribute(name) else { return nil }
        guard let date = SAMLDateTime.parse(text) else {
            throw SAMLRefusal("\(owner)'s \(name) is not a date and time with a time zone.")
        }
        return date
    }
}

extension String {
    /// Without leading and trailing XML white space.
    fileprivate var xmlTrimmed: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !XMLCharacters.isWhitespace($0) }),
            let last = scalars.lastIndex(where: { !XMLCharacters.isWhitespace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
