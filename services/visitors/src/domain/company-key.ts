// The company a visitor counts for in the companies view and company.visited: the identified
// person's email domain, unless it is a mail provider's (gmail.com names no employer); else the
// company its address named, by domain, or by name when the data gives no domain.
import freeMail from 'email-providers/all.json';
import type { Company } from './network-lookup.js';

const FREE_MAIL: ReadonlySet<string> = new Set(freeMail);

export function isFreeMailDomain(domain: string): boolean {
  return FREE_MAIL.has(domain);
}

export function companyKeyOf(v: { email: string | null; company: Company | null }): string | null {
  if (v.email) {
    const domain = v.email.slice(v.email.lastIndexOf('@') + 1).toLowerCase();
    if (domain && !FREE_MAIL.has(domain)) return domain;
  }
  if (!v.company) return null;
  return (v.company.domain ?? v.company.name).toLowerCase();
}
