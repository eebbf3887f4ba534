"""The web page's routes and policy (app/web): served by the service itself, with a content
policy of its own that lets it load nothing from elsewhere and run no inline code."""

from __future__ import annotations

import re

from app.core.security_headers import WEB_POLICY
from app.web.router import STATIC


def test_the_root_leads_to_the_page(client):
    response = client.get("/", follow_redirects=False)
    assert response.status_code == 307
    assert response.headers["location"] == "/app"


def test_the_page_and_its_files_carry_the_strict_policy(client):
    page = client.get("/app")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == WEB_POLICY.decode()
    assert "'unsafe-inline'" not in page.headers["content-security-policy"]
    script = client.get("/app/static/app.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert script.headers["content-security-policy"] == WEB_POLICY.decode()
    assert client.get("/app/static/no-such-file.js").status_code == 404


def test_the_docs_keep_their_own_policy(client):
    docs = client.get("/docs")
    assert "cdn.jsdelivr.net" in docs.headers["content-security-policy"]


def test_the_page_has_no_inline_script_or_style_and_no_outside_address():
    for path in STATIC.iterdir():
        if path.suffix not in {".html", ".js", ".css"}:
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text), path.name
        if path.suffix == ".html":
            assert not re.search(r"<script(?![^>]*\bsrc=)", text), path.name
            assert not re.search(r"<style|\sstyle=|\son[a-z]+=", text), path.name
