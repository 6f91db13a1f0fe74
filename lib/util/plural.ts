/** A count with its noun: "1 fax", "2 faxes", "0 polls". */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
	return `${count} ${count === 1 ? singular : pluralForm}`;
}
