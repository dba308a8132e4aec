// The fixture (Fixtures/SAMLFixtures.swift) is a real nanoidp 3.4.0 response, captured with curl:
//
//   out=$(NANOIDP_PIDFILE=/tmp/xmlsig-nanoidp.pid bash .ci/nanoidp.sh); url=${out##* }
//   # AuthnRequest ID _flowrun-req-7f3a9c, Issuer urn:flowrun:sp, ACS http://127.0.0.1:8766/SAMLAuthLauncher,
//   # raw-DEFLATEd and base64ed: GET $url/saml/sso?SAMLRequest=...&RelayState=rs1 (login page), then
//   curl -c jar -b jar $url/saml/sso --data-urlencode SAMLRequest=<echoed> --data-urlencode saml_original_verb=GET \
//       --data-urlencode RelayState=rs1 --data-urlencode username=ada --data-urlencode password=analytical-engine
//   # -> the auto-post page; its SAMLResponse value is responseBase64; certificatePEM is curl $url/saml/cert.pem.
//   # otherCertificatePEM is /saml/cert.pem after a restart (new key). The response was also verified with signxml.
import Foundation
import Testing

@testable import FlowEmulator
@testable import FlowEmulatorData

@Suite("SAML signature: nanoidp's signed assertion")
struct SAMLSignatureTests {
    typealias Fixture = NanoIDPSAMLFixture

    /// Inside the assertion's window (10:47:26Z to 10:52:26Z).
    static let during = date("2026-11-24T10:48:00Z")

    /// The fixture's response XML.
    static let xml = String(decoding: Data(base64Encoded: Fixture.responseBase64) ?? Data(), as: UTF8.self)

    static func date(_ text: String) -> Date {
        SAMLDateTime.parse(text) ?? .distantPast
    }

    /// The fixture's XML with each `(old, new)` replaced; `old` must occur exactly once.
    static func edited(_ edits: (String, String)...) throws -> String {
        var xml = Self.xml
        for (old, new) in edits {
            let ranges = xml.ranges(of: old)
            try #require(ranges.count == 1, "`\(old)` occurs \(ranges.count) times in the fixture")
            xml.replaceSubrange(ranges[0], with: new)
        }
        return xml
    }

    static func verify(
        _ xml: String = Self.xml, certificate: String = Fixture.certificatePEM, issuer: String? = Fixture.issuer,
        audience: String = Fixture.audience, destination: String = Fixture.destination,
        inResponseTo: String? = Fixture.requestID, now: Date = Self.during, clockSkew: TimeInterval = 60
    ) throws(SAMLRefusal) -> VerifiedSAMLResponse {
        try SAMLResponseVerifier.verify(
            base64: Data(xml.utf8).base64EncodedString(), trusting: SAMLTrust(certificatePEM: certificate),
            issuer: issuer, audience: audience, destination: destination, inResponseTo: inResponseTo, now: now,
            clockSkew: clockSkew)
    }

    /// The reason `xml` is refused; `nil` when it is accepted.
    static func refusal(
        _ xml: String = Self.xml, certificate: String = Fixture.certificatePEM, issuer: String? = Fixture.issuer,
        audience: String = Fixture.audience, destination: String = Fixture.destination,
        inResponseTo: String? = Fixture.requestID, now: Date = Self.during, clockSkew: TimeInterval = 60
    ) -> String? {
        do {
            _ = try verify(
                xml, certificate: certificate, issuer: issuer, audience: audience, destination: destination,
                inResponseTo: inResponseTo, now: now, clockSkew: clockSkew)
            return nil
        } catch {
            return error.reason
        }
    }

    static let assertionID = "_4ef6842ab78744509fdd179088a65157"
    static let expected = VerifiedSAMLResponse(
        issuer: Fixture.issuer, nameID: "ada@example.org", audiences: ["urn:flowrun:sp"],
        inResponseTo: "_flowrun-req-7f3a9c", sessionIndex: "_c50b27e424e04a2fbceaa2d2c7a586af",
        attributes: ["email": ["ada@example.org"]])

    // MARK: Accepted

    @Test("The real response verifies and says who logged in, for whom, in answer to what")
    func verifies() throws {
        #expect(try Self.verify() == Self.expected)
        #expect(
            try SAMLResponseVerifier.verify(
                base64: Fixture.responseBase64, trusting: SAMLTrust(certificatePEM: Fixture.certificatePEM),
                issuer: nil, audience: Fixture.audience, destination: Fixture.destination, inResponseTo: nil,
                now: Self.during) == Self.expected)
    }

    @Test(
        "Writing the signed assertion differently but canonically the same still verifies",
        arguments: [
            // An empty-element tag as a start and end tag, attributes in another order, other quotes.
            (
                #"InResponseTo="_flowrun-req-7f3a9c"/></saml2:SubjectConfirmation>"#,
                #"InResponseTo="_flowrun-req-7f3a9c"></saml2:SubjectConfirmationData></saml2:SubjectConfirmation>"#
            ),
            (
                #"<saml2:AuthnStatement AuthnInstant="2026-11-24T10:47:26Z" "#
                    + #"SessionIndex="_c50b27e424e04a2fbceaa2d2c7a586af">"#,
                "<saml2:AuthnStatement\n  SessionIndex='_c50b27e424e04a2fbceaa2d2c7a586af'\t"
                    + "AuthnInstant = '2026-11-24T10:47:26Z' >"
            ),
            // A character reference, a CDATA section, a comment: the same text.
            (">ada@example.org</saml2:NameID>", ">&#x61;da@example.org</saml2:NameID>"),
            ("<saml2:Audience>urn:flowrun:sp<", "<saml2:Audience><![CDATA[urn:flowrun:sp]]><"),
            (">ada@example.org</saml2:NameID>", ">ada@<!-- a comment is not signed -->example.org</saml2:NameID>"),
            // A namespace declared again with the same URI, and the XML declaration with double quotes.
            ("<saml2:Assertion ID=", #"<saml2:Assertion xmlns:saml2="urn:oasis:names:tc:SAML:2.0:assertion" ID="#),
            ("<?xml version='1.0' encoding='UTF-8'?>", #"<?xml version="1.0" encoding="utf-8" standalone="yes"?>"#),
        ])
    func canonicallyEqual(old: String, new: String) throws {
        #expect(try Self.verify(Self.edited((old, new))) == Self.expected)
    }

    @Test("The clock skew stretches the window by 60 seconds at both ends")
    func skew() throws {
        #expect(try Self.verify(now: Self.date("2026-11-24T10:53:25Z")).nameID == "ada@example.org")
        #expect(try Self.verify(now: Self.date("2026-11-24T10:46:27Z")).nameID == "ada@example.org")
        #expect(Self.refusal(now: Self.date("2026-11-24T10:52:25Z"), clockSkew: 0) == nil)
        #expect(Self.refusal(now: Self.date("2026-11-24T10:52:26Z"), clockSkew: 0)?.contains("expired") == true)
        #expect(Self.refusal(now: Self.date("2026-11-24T10:47:25Z"), clockSkew: 0)?.contains("not yet valid") == true)
    }

    @Test("A response signed by the JDK's XML-DSig (PrefixLists, default namespace, signature after Issuer) verifies")
    func otherImplementation() throws {
        let trust = try SAMLTrust(certificatePEM: SantuarioSAMLFixture.certificatePEM)
        func verify(now: String) throws(SAMLRefusal) -> VerifiedSAMLResponse {
            try SAMLResponseVerifier.verify(
                base64: SantuarioSAMLFixture.responseBase64, trusting: trust, issuer: "https://idp.example",
                audience: "https://sp.example", destination: "https://sp.example/acs", inResponseTo: "_req1",
                now: Self.date(now), clockSkew: 0)
        }
        #expect(
            try verify(now: "2030-01-01T00:01:00Z")
                == VerifiedSAMLResponse(
                    issuer: "https://idp.example", nameID: "grace@example.org", audiences: ["https://sp.example"],
                    inResponseTo: "_req1", sessionIndex: "_s1",
                    attributes: ["groups": ["admins & ops", "users"], "note": ["tab\tand <angle> \"quotes\""]]))
        // Without skew, Conditions' NotOnOrAfter (00:05:00) ends it before the confirmation's (00:05:00.5).
        #expect(throws: SAMLRefusal.self) { try verify(now: "2030-01-01T00:05:00Z") }
        #expect(throws: Never.self) { try verify(now: "2030-01-01T00:04:59.9Z") }
        #expect(
            Self.refusal(certificate: SantuarioSAMLFixture.certificatePEM)?.contains("KeyInfo names another") == true)
    }

    @Test("Only an RSA certificate can be trusted")
    func trust() throws {
        #expect(throws: Never.self) { try SAMLTrust(certificatePEM: Fixture.otherCertificatePEM) }
        #expect {
            try SAMLTrust(certificatePEM: SantuarioSAMLFixture.ellipticCurveCertificatePEM)
        } throws: { error in
            (error as? SAMLRefusal)?.reason.contains("not an RSA key") == true
        }
        #expect(throws: SAMLRefusal.self) { try SAMLTrust(certificatePEM: "-----BEGIN CERTIFICATE-----\nAAAA\n") }
    }

    // MARK: Refused: the signature

    @Test("A changed NameID no longer matches the digest")
    func changedNameID() throws {
        let reason = Self.refusal(
            try Self.edited((">ada@example.org</saml2:NameID>", ">eve@example.org</saml2:NameID>")))
        #expect(reason?.contains("does not match the digest") == true, "\(reason ?? "accepted")")
    }

    @Test("A comment cannot shorten the NameID: its text is all of its text, as signed")
    func commentInNameID() throws {
        let xml = try Self.edited((">ada@example.org</saml2:NameID>", ">ada@example.org<!---->.evil</saml2:NameID>"))
        #expect(Self.refusal(xml)?.contains("does not match the digest") == true)
    }

    @Test("A changed SignatureValue does not verify")
    func changedSignatureValue() throws {
        let reason = Self.refusal(try Self.edited(("<ds:SignatureValue>e3C5", "<ds:SignatureValue>f3C5")))
        #expect(reason?.contains("signature does not verify with the trusted certificate") == true)
        #expect(reason?.contains("KeyInfo") == false)
    }

    @Test("A certificate other than the signer's is not trusted, whatever KeyInfo says")
    func otherCertificate() throws {
        let reason = Self.refusal(certificate: Fixture.otherCertificatePEM)
        #expect(reason?.contains("signature does not verify with the trusted certificate") == true)
        #expect(reason?.contains("KeyInfo names another certificate") == true)
        // Removing KeyInfo changes nothing: it is never used to verify.
        let start = try #require(Self.xml.range(of: "<ds:KeyInfo>"))
        let end = try #require(Self.xml.range(of: "</ds:KeyInfo>"))
        var withoutKeyInfo = Self.xml
        withoutKeyInfo.removeSubrange(start.lowerBound..<end.upperBound)
        #expect(try Self.verify(withoutKeyInfo) == Self.expected)
        #expect(Self.refusal(withoutKeyInfo, certificate: Fixture.otherCertificatePEM)?.contains("verify") == true)
    }

    @Test("SHA-1 is refused for the signature and for the digest")
    func sha1() throws {
        let signatureMethod = try Self.edited(
            (
                "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
                "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
            ))
        #expect(Self.refusal(signatureMethod)?.contains("RSA-SHA1 (SHA-1 is refused)") == true)
        let digestMethod = try Self.edited(
            ("http://www.w3.org/2001/04/xmlenc#sha256", "http://www.w3.org/2000/09/xmldsig#sha1"))
        #expect(Self.refusal(digestMethod)?.contains("digest method is not SHA-256") == true)
        #expect(Self.refusal(digestMethod)?.contains("SHA-1 is refused") == true)
    }

    @Test("Other canonicalizations and transforms are refused")
    func otherAlgorithms() throws {
        let inclusive = try Self.edited(
            (
                #"<ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>"#,
                #"<ds:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>"#
            ))
        #expect(Self.refusal(inclusive)?.contains("canonicalization method is not exclusive") == true)
        let noEnveloped = try Self.edited(
            (#"<ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>"#, ""))
        #expect(Self.refusal(noEnveloped)?.contains("transforms must be exactly") == true)
        let start = try #require(Self.xml.range(of: "<ds:Signature>"))
        let end = try #require(Self.xml.range(of: "</ds:Signature>"))
        var unsigned = Self.xml
        unsigned.removeSubrange(start.lowerBound..<end.upperBound)
        #expect(Self.refusal(unsigned) == "The assertion is not signed: it has no ds:Signature.")
    }

    // MARK: Refused: signature wrapping

    /// An unsigned assertion naming eve, with `id`.
    static func evilAssertion(id: String) -> String {
        #"<saml2:Assertion ID="\#(id)" Version="2.0" IssueInstant="2026-11-24T10:47:26Z">"#
            + "<saml2:Issuer>\(Fixture.issuer)</saml2:Issuer><saml2:Subject><saml2:NameID>eve@example.org"
            + "</saml2:NameID></saml2:Subject></saml2:Assertion>"
    }

    @Test("A second, unsigned assertion beside the signed one is refused")
    func secondAssertion() throws {
        let xml = try Self.edited(("</saml2p:Response>", Self.evilAssertion(id: "_evil") + "</saml2p:Response>"))
        #expect(Self.refusal(xml) == "The SAML response holds 2 assertions; exactly one is accepted.")
        let before = try Self.edited(("<saml2:Assertion ID=", Self.evilAssertion(id: "_evil") + "<saml2:Assertion ID="))
        #expect(Self.refusal(before) == "The SAML response holds 2 assertions; exactly one is accepted.")
    }

    @Test("The signed assertion moved away, a forged one with its ID in its place, is refused")
    func movedAssertion() throws {
        let start = try #require(Self.xml.range(of: "<saml2:Assertion "))
        let end = try #require(Self.xml.range(of: "</saml2:Assertion>"))
        let signed = String(Self.xml[start.lowerBound..<end.upperBound])
        var xml = Self.xml
        xml.replaceSubrange(
            start.lowerBound..<end.upperBound,
            with: "<saml2p:Extensions>\(signed)</saml2p:Extensions>" + Self.evilAssertion(id: Self.assertionID))
        #expect(Self.refusal(xml)?.contains("holds 2 assertions") == true)
        // The signed assertion alone, but not where an assertion belongs.
        var nested = Self.xml
        nested.replaceSubrange(
            start.lowerBound..<end.upperBound, with: "<saml2p:Extensions>\(signed)</saml2p:Extensions>")
        #expect(Self.refusal(nested) == "The assertion is not a child of the samlp:Response.")
    }

    @Test("The referenced ID moved to another element, or carried twice, is refused")
    func movedID() throws {
        let moved = try Self.edited(
            (#"ID="_e17873c80c654616bf4c8cf6586dbc7d""#, #"ID="\#(Self.assertionID)""#),
            (#"<saml2:Assertion ID="\#(Self.assertionID)""#, #"<saml2:Assertion ID="_evil""#))
        #expect(Self.refusal(moved)?.contains("Reference does not point to the assertion") == true)
        let twice = try Self.edited((#"ID="_e17873c80c654616bf4c8cf6586dbc7d""#, #"ID="\#(Self.assertionID)""#))
        #expect(Self.refusal(twice)?.contains("2 elements carry the ID the signature references") == true)
        let otherAttribute = try Self.edited(
            ("<saml2p:Status>", #"<saml2p:Status><saml2p:StatusMessage Id="\#(Self.assertionID)"/>"#))
        #expect(Self.refusal(otherAttribute)?.contains("2 elements carry the ID") == true)
    }

    // MARK: Refused: XML

    @Test("A DOCTYPE is refused, and with it entity declarations (XXE)")
    func doctype() throws {
        let xxe = try Self.edited(
            (
                "<?xml version='1.0' encoding='UTF-8'?>\n",
                "<?xml version='1.0' encoding='UTF-8'?>\n<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
            ),
            (">ada@example.org</saml2:NameID>", ">&x;</saml2:NameID>"))
        let reason = try #require(Self.refusal(xxe))
        #expect(reason.contains("a DOCTYPE is not accepted"))
        #expect(reason.contains("(at 2:1)"))
        let undeclared = try Self.edited((">ada@example.org</saml2:NameID>", ">&x;</saml2:NameID>"))
        #expect(Self.refusal(undeclared)?.contains("not one of the five predefined ones") == true)
    }

    @Test("What is not base64, not XML, or not a SAML response is refused")
    func notAResponse() throws {
        let trust = try SAMLTrust(certificatePEM: Fixture.certificatePEM)
        func refusal(base64: String) -> String? {
            do {
                _ = try SAMLResponseVerifier.verify(
                    base64: base64, trusting: trust, issuer: nil, audience: Fixture.audience,
                    destination: Fixture.destination, inResponseTo: nil, now: Self.during)
                return nil
            } catch {
                return error.reason
            }
        }
        #expect(refusal(base64: "not base64!") == "The SAML response is not base64.")
        #expect(refusal(base64: Data("<a>".utf8).base64EncodedString())?.contains("never closed") == true)
        #expect(
            refusal(base64: Data("<a/>".utf8).base64EncodedString()) == "The SAML response is not a samlp:Response.")
    }

    // MARK: Refused: what the assertion says

    @Test("An assertion for another audience is refused")
    func wrongAudience() {
        #expect(
            Self.refusal(audience: "urn:other:sp")
                == "The assertion's Audience is not this service provider's urn:other:sp.")
    }

    @Test("A response for another destination or recipient is refused")
    func wrongDestination() throws {
        let other = "http://127.0.0.1:9999/acs"
        #expect(Self.refusal(destination: other)?.contains("response's Destination is not") == true)
        // Without the (unsigned) Destination, the signed Recipient still decides.
        let noDestination = try Self.edited((#" Destination="http://127.0.0.1:8766/SAMLAuthLauncher""#, ""))
        #expect(try Self.verify(noDestination) == Self.expected)
        #expect(Self.refusal(noDestination, destination: other)?.contains("Recipient is not") == true)
    }

    @Test("An expired assertion is refused")
    func expired() {
        let reason = Self.refusal(now: Self.date("2026-11-24T10:53:27Z"))
        #expect(reason?.hasPrefix("The assertion has expired") == true)
        #expect(reason?.contains("2026-11-24T10:52:26Z") == true)
    }

    @Test("An assertion not yet valid is refused")
    func notYetValid() {
        let reason = Self.refusal(now: Self.date("2026-11-24T10:46:25Z"))
        #expect(reason?.hasPrefix("The assertion is not yet valid") == true)
        #expect(reason?.contains("NotBefore is 2026-11-24T10:47:26Z") == true)
    }

    @Test("A response to another request is refused")
    func wrongInResponseTo() throws {
        #expect(Self.refusal(inResponseTo: "_another-request")?.contains("InResponseTo is not the ID") == true)
        // The signed SubjectConfirmationData decides even without the response's own InResponseTo.
        let unsignedRemoved = try Self.edited((#" InResponseTo="_flowrun-req-7f3a9c">"#, ">"))
        #expect(
            Self.refusal(unsignedRemoved, inResponseTo: "_another-request")
                == "The bearer SubjectConfirmationData's InResponseTo is not the ID of the request this login sent.")
    }

    @Test("A response whose status is not Success is refused")
    func notSuccess() throws {
        let xml = try Self.edited(
            ("urn:oasis:names:tc:SAML:2.0:status:Success", "urn:oasis:names:tc:SAML:2.0:status:Responder"))
        #expect(
            Self.refusal(xml) == "The identity provider's status is not Success but Responder: the login failed there.")
    }

    @Test("An assertion from another issuer is refused when the issuer is given")
    func wrongIssuer() {
        #expect(Self.refusal(issuer: "http://127.0.0.1:1/saml")?.contains("Issuer is not the expected") == true)
        #expect(Self.refusal(issuer: nil) == nil)
    }
}

@Suite("SAML signature: exclusive XML canonicalization")
struct SAMLSignatureCanonicalizationTests {
    /// The exclusive canonical form of the first element named `localName` in `xml` (document order).
    static func canonical(_ xml: String, _ localName: String? = nil, prefixList: String = "") throws -> String {
        let tree = try StrictXMLParser.parse(Array(xml.utf8))
        let element = try #require(
            localName.map { name in tree.elementsWithPaths.first { $0.element.localName == name }?.element }
                ?? tree.root)
        return String(decoding: ExclusiveCanonicalization(prefixList: prefixList).canonicalize(element), as: UTF8.self)
    }

    @Test("exc-c14n §2.2: the same subtree in two contexts canonicalizes the same, without its ancestors' namespaces")
    func specificationExample() throws {
        let first = """
            <n0:local xmlns:n0="foo:bar" xmlns:n3="ftp://example.org">
               <n1:elem2 xmlns:n1="http://example.net" xml:lang="en">
                   <n3:stuff xmlns:n3="ftp://example.org"/>
               </n1:elem2>
            </n0:local>
            """
        let second = """
            <n2:pdu xmlns:n1="http://example.com"
                       xmlns:n2="http://foo.example"
                       xml:lang="fr"
                       xml:space="retain">
               <n1:elem2 xmlns:n1="http://example.net" xml:lang="en">
                   <n3:stuff xmlns:n3="ftp://example.org"/>
               </n1:elem2>
            </n2:pdu>
            """
        let expected = """
            <n1:elem2 xmlns:n1="http://example.net" xml:lang="en">
                   <n3:stuff xmlns:n3="ftp://example.org"></n3:stuff>
               </n1:elem2>
            """
        #expect(try Self.canonical(first, "elem2") == expected)
        #expect(try Self.canonical(second, "elem2") == expected)
    }

    @Test("C14N §3.3 (exclusive): empty elements, attribute order by namespace URI, namespaces only where used")
    func startAndEndTags() throws {
        let xml = """
            <doc>
               <e1   />
               <e2   ></e2>
               <e3   name = "elem3"   id="elem3"   />
               <e4   name="elem4"   id="elem4"   ></e4>
               <e5 a:attr="out" b:attr="sorted" attr2="all" attr="I'm"
                  xmlns:b="http://www.ietf.org"
                  xmlns:a="http://www.w3.org"
                  xmlns="http://example.org"/>
               <e6 xmlns="" xmlns:a="http://www.w3.org">
                  <e7 xmlns="http://www.ietf.org">
                     <e8 xmlns="" xmlns:a="http://www.w3.org">
                        <e9 xmlns="" xmlns:a="http://www.ietf.org"/>
                     </e8>
                  </e7>
               </e6>
            </doc>
            """
        let expected = """
            <doc>
               <e1></e1>
               <e2></e2>
               <e3 id="elem3" name="elem3"></e3>
               <e4 id="elem4" name="elem4"></e4>
               <e5 xmlns="http://example.org" xmlns:a="http://www.w3.org" xmlns:b="http://www.ietf.org" \
            attr="I'm" attr2="all" b:attr="sorted" a:attr="out"></e5>
               <e6>
                  <e7 xmlns="http://www.ietf.org">
                     <e8 xmlns="">
                        <e9></e9>
                     </e8>
                  </e7>
               </e6>
            </doc>
            """
        #expect(try Self.canonical(xml) == expected)
    }

    @Test("C14N §3.4: character references, CDATA, escaping in text and attributes, attribute value normalization")
    func characters() throws {
        let xml = """
            <doc>
               <text>First line&#x0d;&#10;Second line</text>
               <value>&#x32;</value>
               <compute><![CDATA[value>"0" && value<"10" ?"valid":"error"]]></compute>
               <compute expr='value>"0" &amp;&amp; value&lt;"10" ?"valid":"error"'>valid</compute>
               <norm attr=' &apos;   &#x20;&#13;&#xa;&#9;   &apos; '/>
               <normNames attr='   A   &#x20;&#13;&#xa;&#9;   B   '/>
            </doc>
            """
        let expected = """
            <doc>
               <text>First line&#xD;
            Second line</text>
               <value>2</value>
               <compute>value&gt;"0" &amp;&amp; value&lt;"10" ?"valid":"error"</compute>
               <compute expr="value>&quot;0&quot; &amp;&amp; value&lt;&quot;10&quot; ?&quot;valid&quot;:&quot;\
            error&quot;">valid</compute>
               <norm attr=" '    &#xD;&#xA;&#x9;   ' "></norm>
               <normNames attr="   A    &#xD;&#xA;&#x9;   B   "></normNames>
            </doc>
            """
        #expect(try Self.canonical(xml) == expected)
    }

    @Test("Line ends become LF; literal tabs and line ends in attributes become spaces; PIs stay, comments go")
    func lineEndsAndOtherNodes() throws {
        let xml = "<r a=\"x\r\ny\tz\"><?pi  data  ?><?empty?><!-- gone --><x>1\r\n2\r3</x></r>"
        #expect(try Self.canonical(xml) == "<r a=\"x y z\"><?pi data  ?><?empty?><x>1\n2\n3</x></r>")
    }

    static let prefixes = """
        <a:Root xmlns="urn:default" xmlns:a="urn:a" xmlns:b="urn:b" xmlns:c="urn:c">\
        <a:Child b:x="1"><Plain/><c:Leaf/></a:Child></a:Root>
        """

    @Test(
        "InclusiveNamespaces PrefixList: listed prefixes in scope are rendered at the apex, as by Apache Santuario",
        arguments: [
            (
                "",
                #"<a:Child xmlns:a="urn:a" xmlns:b="urn:b" b:x="1"><Plain xmlns="urn:default"></Plain>"#
                    + #"<c:Leaf xmlns:c="urn:c"></c:Leaf></a:Child>"#
            ),
            (
                "c",
                #"<a:Child xmlns:a="urn:a" xmlns:b="urn:b" xmlns:c="urn:c" b:x="1"><Plain xmlns="urn:default">"#
                    + "</Plain><c:Leaf></c:Leaf></a:Child>"
            ),
            (
                "#default",
                #"<a:Child xmlns="urn:default" xmlns:a="urn:a" xmlns:b="urn:b" b:x="1"><Plain></Plain>"#
                    + #"<c:Leaf xmlns:c="urn:c"></c:Leaf></a:Child>"#
            ),
            (
                " #default\ta c  unbound ",
                #"<a:Child xmlns="urn:default" xmlns:a="urn:a" xmlns:b="urn:b" "#
                    + #"xmlns:c="urn:c" b:x="1"><Plain></Plain><c:Leaf></c:Leaf></a:Child>"#
            ),
        ])
    func prefixList(list: String, expected: String) throws {
        #expect(try Self.canonical(Self.prefixes, "Child", prefixList: list) == expected)
    }

    @Test("xmlns=\"\" is rendered only where an output ancestor rendered a default namespace")
    func emptyDefaultNamespace() throws {
        let xml = #"<a xmlns="urn:x"><b xmlns=""><c/></b></a>"#
        #expect(try Self.canonical(xml) == #"<a xmlns="urn:x"><b xmlns=""><c></c></b></a>"#)
        #expect(try Self.canonical(xml, "b") == "<b><c></c></b>")
        #expect(try Self.canonical(xml, "b", prefixList: "#default") == "<b><c></c></b>")
    }

    @Test("nanoidp's SignedInfo canonicalizes as libxml2 does, with ds declared on the Response")
    func signedInfo() throws {
        let canonical = try Self.canonical(SAMLSignatureTests.xml, "SignedInfo")
        #expect(
            canonical.hasPrefix(
                #"<ds:SignedInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:CanonicalizationMethod "#
                    + #"Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"></ds:CanonicalizationMethod>"#))
        #expect(
            canonical.hasSuffix(
                "<ds:DigestValue>/Fl7OugTH1IC2Uy6r2JrEaGGaMJa+Ezf3+aucyAXayA=</ds:DigestValue></ds:Reference>"
                    + "</ds:SignedInfo>"))
    }
}

@Suite("SAML signature: the strict XML parser")
struct SAMLSignatureXMLParserTests {
    @Test("Namespaces resolve: prefixes, the default namespace, its undeclaration, xml:, unprefixed attributes")
    func namespaces() throws {
        let tree = try StrictXMLParser.parse(
            Array(#"<p:a xmlns:p="urn:p" xmlns="urn:d" p:x="1" y="2" xml:lang="en"><b><c xmlns=""/></b></p:a>"#.utf8))
        let root = tree.root
        #expect(root.namespace == "urn:p" && root.localName == "a" && root.prefix == "p")
        #expect(root.attributes.map(\.namespace) == ["urn:p", nil, StrictXMLParser.xmlNamespace])
        #expect(root.namespacesInScope == ["p": "urn:p", "": "urn:d"])
        let b = try #require(root.elements.first)
        #expect(b.namespace == "urn:d")
        let c = try #require(b.elements.first)
        #expect(c.namespace == nil && c.namespacesInScope == ["p": "urn:p"])
        #expect(c.mark == XMLTree.Mark(line: 1, column: 67))
    }

    @Test("Text joins CDATA and references; a byte order mark and an XML declaration are accepted")
    func text() throws {
        let tree = try StrictXMLParser.parse(
            [0xEF, 0xBB, 0xBF] + Array("<?xml version='1.0'?><a>x&lt;<![CDATA[&y]]>&#x1F600;</a>".utf8))
        #expect(tree.root.children == [.text("x<&y😀")])
    }

    @Test(
        "Refused, with where",
        arguments: [
            ("<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>", "1:1", "a DOCTYPE is not accepted"),
            ("<a>\n<!DOCTYPE a></a>", "2:1", "a DOCTYPE is not accepted"),
            ("<a>&e;</a>", "1:4", "not one of the five predefined ones"),
            ("<a>&#0;</a>", "1:4", "a character not allowed in XML"),
            ("<a>&#xD800;</a>", "1:4", "a character not allowed in XML"),
            ("<a>]]></a>", "1:4", "']]>' is not allowed in text"),
            ("<a><!-- a -- b --></a>", "1:11", "'--' is not allowed inside a comment"),
            ("<a>\n  <b></c></a>", "2:6", "the end tag </c> does not close <b> opened at 2:3"),
            ("<a x='1' x='2'/>", "1:10", "the attribute x appears twice"),
            ("<a xmlns:p='u' xmlns:q='u' p:x='1' q:x='2'/>", "1:1", "appears twice"),
            ("<p:a/>", "1:1", "the prefix p is not declared"),
            ("<a xmlns:p=''/>", "1:4", "cannot be undeclared"),
            ("<a xmlns:xml='urn:x'/>", "1:4", "the prefix xml cannot be bound"),
            ("<a x='<'/>", "1:7", "'<' is not allowed in an attribute value"),
            ("<a x=1/>", "1:6", "an attribute value must be quoted"),
            ("<?xml version='1.0' encoding='ISO-8859-1'?><a/>", "1:21", "only the encoding UTF-8"),
            ("<?xml version='1.1'?><a/>", "1:20", "only XML version 1.0"),
            ("<a/><?xml version='1.0'?>", "1:7", "only allowed at the very start"),
            ("<a/><b/>", "1:5", "only comments, processing instructions and white space"),
            ("text<a/>", "1:1", "text is not allowed before the root element"),
            ("<a>", "1:4", "<a> opened at 1:1 is never closed"),
            ("<a:b:c xmlns:a='u'/>", "1:1", "not a qualified name"),
            ("<a>\u{1}</a>", "1:4", "U+1 is not allowed"),
        ])
    func refused(xml: String, mark: String, problem: String) {
        #expect {
            try StrictXMLParser.parse(Array(xml.utf8))
        } throws: { error in
            guard let error = error as? XMLSyntaxError else { return false }
            return error.mark.description == mark && error.problem.contains(problem)
        }
    }

    @Test("Invalid UTF-8, nesting deeper than 64 and more than 256 namespace declarations are refused")
    func limits() {
        #expect(throws: XMLSyntaxError.self) { try StrictXMLParser.parse([0x3C, 0x61, 0xFF, 0x2F, 0x3E]) }
        let deep = String(repeating: "<a>", count: 65) + String(repeating: "</a>", count: 65)
        #expect(throws: XMLSyntaxError.self) { try StrictXMLParser.parse(Array(deep.utf8)) }
        let fine = String(repeating: "<a>", count: 64) + String(repeating: "</a>", count: 64)
        #expect(throws: Never.self) { try StrictXMLParser.parse(Array(fine.utf8)) }
        let declarations = (0...256).map { " xmlns:p\($0)='urn:p'" }.joined()
        #expect { try StrictXMLParser.parse(Array("<a\(declarations)/>".utf8)) } throws: { error in
            (error as? XMLSyntaxError)?.problem == "the document declares more than 256 namespaces"
        }
    }
}
