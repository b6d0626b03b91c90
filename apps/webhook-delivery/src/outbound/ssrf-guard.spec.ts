import { InvalidWebhookUrlError, assertAllowedWebhookUrl } from './ssrf-guard';

describe(assertAllowedWebhookUrl.name, () => {
  it.each(['https://example.com/hook', 'http://example.com:8080/x?y=1', 'https://hooks.example.com/a/b?c=d&e=f'])('accepts %s', (url) => {
    expect(() => assertAllowedWebhookUrl(url)).not.toThrow();
  });

  it.each([
    ['ftp://example.com/hook', /must use http or https, not ftp:/],
    ['javascript:alert(1)', /must use http or https, not javascript:/],
    ['file:///etc/passwd', /must use http or https/],
    ['/hooks/relative', /absolute http or https URL/],
    ['example.com/hook', /absolute http or https URL/],
    ['http://', /absolute http or https URL/],
    ['', /absolute http or https URL/],
    ['https://user:pw@example.com/', /username or password/],
    ['https://user@example.com/', /username or password/],
    ['https://:pw@example.com/', /username or password/],
    ['https://example.com/hook#section', /fragment/],
    ['https://example.com/hook#', /fragment/],
  ])('rejects %j', (url, message) => {
    expect(() => assertAllowedWebhookUrl(url)).toThrow(InvalidWebhookUrlError);
    expect(() => assertAllowedWebhookUrl(url)).toThrow(message);
  });
});
