// The API as the page calls it: the key from this tab's session storage (never a URL, never
// localStorage), the page's language for the sentences, problem+json errors as ApiError.
const KEY_ITEM = "nocturne.apiKey";
const BASE = "/api/v1";

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export function storedKey() {
  return sessionStorage.getItem(KEY_ITEM);
}

export function storeKey(key) {
  sessionStorage.setItem(KEY_ITEM, key);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY_ITEM);
}

export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== "") search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

export class Api {
  constructor(key, language) {
    this.key = key;
    this.language = language;
  }

  headers(extra) {
    return {
      Authorization: `Bearer ${this.key}`,
      "Accept-Language": this.language,
      ...extra,
    };
  }

  async request(method, path, { body, etag } = {}) {
    const headers = this.headers(body === undefined ? {} : { "Content-Type": "application/json" });
    if (etag) headers["If-None-Match"] = etag;
    const response = await fetch(BASE + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
    if (response.status === 304) return { notModified: true, etag };
    if (!response.ok) {
      let problem = null;
      try {
        problem = await response.json();
      } catch {
        problem = null;
      }
      throw new ApiError(response.status, problem);
    }
    const data = response.status === 204 ? null : await response.json();
    return { data, etag: response.headers.get("ETag"), headers: response.headers };
  }

  async get(path, params) {
    return (await this.request("GET", path + query(params))).data;
  }

  async post(path, body, params) {
    return (await this.request("POST", path + query(params), { body })).data;
  }

  async put(path, body) {
    return (await this.request("PUT", path, { body })).data;
  }

  /** Every page of a keyset-paginated listing (`next_after_seq`). */
  async allPages(path, params) {
    const entries = [];
    let after = params.after_seq || 0;
    for (;;) {
      const page = await this.get(path, { ...params, after_seq: after, limit: 200 });
      entries.push(...page.data);
      if (page.next_after_seq === null || page.next_after_seq === undefined) return entries;
      after = page.next_after_seq;
    }
  }

  /** The NDJSON export as text, fetched with the key (the verifier trusts nothing else). */
  async exportText(campaignId) {
    const response = await fetch(`${BASE}/campaigns/${campaignId}/log/export`, {
      headers: this.headers(),
      cache: "no-store",
    });
    if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
    return { text: await response.text(), head: response.headers.get("Log-Head") };
  }
}
